import Plugboard

/// The trace of one `plugboard run`, collected as it goes: a span per library
/// load, per event, per plugin call and per notification delivery, and an instant
/// per worker failure and per notification unobserved or dropped, in
/// microseconds since the run began (host monotonic clock).
///
/// Kept in the CLI: the host already reports everything a trace needs (load
/// times, each call's duration), and only the run knows when each event began.
/// Used on the run's thread only.
final class RunRecording {
    private let origin: UInt64
    private var events: [ChromeTraceEvent] = []
    private var lanes: [String: Int] = [:]
    private var laneNames: [String] = []

    /// A recording whose time zero is now.
    init() {
        origin = MonotonicClock.now()
    }

    /// Records loading: finding the libraries (and, with workers, starting them) from
    /// `start` to the first load, then one span per library with its plugins, and an
    /// instant for a library whose worker failed while it loaded (`workerEnded` says, by path).
    func recordLoading(_ reports: [LoadReport], start: UInt64, workerEnded: (String) -> Bool) {
        if let first = reports.compactMap(\.loadTime).first, first.start > start {
            span("find libraries, start workers", .load, lane: "host", from: start, nanoseconds: first.start - start, args: [:])
        }
        for report in reports {
            guard let time = report.loadTime else { continue }
            let plugins = report.plugins.map(\.descriptor.id.rawValue).joined(separator: ",")
            span("load " + report.path, .load, lane: "library " + report.path, from: time.start, nanoseconds: time.nanoseconds,
                 args: ["library": report.path, "plugins": plugins, "status": report.status.rawValue])
            if let failure = report.failure, failure.stage == .worker || workerEnded(report.path) {
                instant("worker failed", .worker, lane: "library " + report.path, at: time.start + time.nanoseconds,
                        args: ["library": report.path, "message": failure.message])
            }
        }
    }

    /// Records a live change that ended at `end`: a span on the library's lane named for the change's
    /// kind, with its sentence.
    func recordChange(_ change: LibraryChange, end: UInt64) {
        span(change.kind.rawValue + " " + change.path, .load, lane: "library " + change.path,
             from: end &- change.nanoseconds, nanoseconds: change.nanoseconds,
             args: ["library": change.path, "change": change.kind.rawValue, "message": change.sentence])
    }

    /// Records one event that ran from `start` to `end`: its span, each timed call laid
    /// end to end from `start` (calls run one after another) and clipped to the event,
    /// and an instant for each plugin whose worker failed during it.
    func recordEvent(_ report: EventReport, detail: String?, start: UInt64, end: UInt64) {
        let event = report.event.name
        var args = ["event": event]
        if let detail { args["detail"] = detail }
        span(event, .event, lane: "events", from: start, nanoseconds: end - start, args: args)
        var callStart = start
        for call in report.calls {
            guard let nanoseconds = call.nanoseconds else { continue }
            let plugin = call.plugin.rawValue
            let length = min(nanoseconds, end - min(callStart, end))
            span(plugin + " " + event, .call, lane: "plugin " + plugin, from: callStart, nanoseconds: length,
                 args: ["plugin": plugin, "event": event, "answer": Self.describe(call.answer)])
            callStart += length
        }
        for failure in report.failures {
            instant("worker failed", .worker, lane: "plugin " + failure.plugin.rawValue, at: end,
                    args: ["plugin": failure.plugin.rawValue, "event": event, "message": failure.message])
        }
        recordNotifications(report.notifications, from: callStart, end: end)
    }

    /// Records a script's post of `name` that ran from `start` to `end`: its span on the
    /// events lane and its deliveries.
    func recordPost(_ name: String, _ report: NotificationReport, start: UInt64, end: UInt64) {
        span("post " + name, .event, lane: "events", from: start, nanoseconds: end - start, args: ["event": "post", "detail": name])
        recordNotifications(report, from: start, end: end)
    }

    /// Records each delivery as a span on its receiver's lane, laid end to end from `start`
    /// (deliveries run one after another) and clipped to `end`, and an instant for each
    /// notification unobserved or dropped.
    private func recordNotifications(_ report: NotificationReport, from start: UInt64, end: UInt64) {
        var deliveryStart = start
        for delivery in report.deliveries {
            let length = min(delivery.nanoseconds ?? 0, end - min(deliveryStart, end))
            var args = ["notification": delivery.name, "sender": delivery.sender, "receiver": delivery.receiver,
                        "depth": String(delivery.depth)]
            if let failure = delivery.failure { args["failure"] = failure }
            span(delivery.name + " → " + delivery.receiver, .notification, lane: Self.lane(delivery.receiver),
                 from: deliveryStart, nanoseconds: length, args: args)
            deliveryStart += length
        }
        for (what, posted) in report.unobserved.map({ ("unobserved", $0) }) + (report.dropped + report.undelivered).map({ ("dropped", $0) }) {
            instant("notification " + what, .notification, lane: Self.lane(posted.sender), at: end,
                    args: ["notification": posted.name, "sender": posted.sender, "depth": String(posted.depth)])
        }
    }

    /// The lane of a plugin, or the events lane for the host ("plugboard").
    private static func lane(_ plugin: String) -> String {
        plugin == "plugboard" ? "events" : "plugin " + plugin
    }

    /// The trace so far, with a name for each lane.
    var trace: ChromeTrace {
        let names = laneNames.enumerated().map { tid, name in
            ChromeTraceEvent(name: "thread_name", cat: "", ph: "M", ts: 0, tid: tid, args: ["name": name])
        }
        let process = ChromeTraceEvent(name: "process_name", cat: "", ph: "M", ts: 0, tid: 0, args: ["name": "plugboard run"])
        return ChromeTrace(traceEvents: [process] + names + events)
    }

    private func span(_ name: String, _ category: TraceCategory, lane: String, from start: UInt64, nanoseconds: UInt64,
                      args: [String: String]) {
        events.append(ChromeTraceEvent(name: name, cat: category.rawValue, ph: "X", ts: microseconds(start),
                                       dur: Double(nanoseconds) / 1000, tid: tid(lane), args: args))
    }

    private func instant(_ name: String, _ category: TraceCategory, lane: String, at time: UInt64, args: [String: String]) {
        events.append(ChromeTraceEvent(name: name, cat: category.rawValue, ph: "i", ts: microseconds(time),
                                       tid: tid(lane), s: "t", args: args))
    }

    private func microseconds(_ time: UInt64) -> Double {
        Double(time &- min(time, origin)) / 1000
    }

    private func tid(_ lane: String) -> Int {
        if let tid = lanes[lane] { return tid }
        let tid = laneNames.count
        lanes[lane] = tid
        laneNames.append(lane)
        return tid
    }

    private static func describe(_ answer: PluginAnswer) -> String {
        switch answer {
        case .returned: "returned"
        case .bool(let value): String(value)
        case .fetch(let value): value.rawValue
        case .timedOut: "timed-out"
        case .notTakingPart: "not-taking-part"
        case .failed: "failed"
        }
    }
}
