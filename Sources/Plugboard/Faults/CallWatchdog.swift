import CFaultReporter
import Dispatch
import Synchronization

/// Watches one host's ``CallRecord`` and reports, once per call, a plugin call
/// that has not returned within the host's call timeout.
///
/// It samples the record on a timer (four times per timeout, at most once a
/// second), so the dispatch loop pays nothing for it; a call is reported
/// between one timeout and one sampling interval after it began. In process a
/// call cannot be stopped: the report says so, and the host goes on waiting.
final class CallWatchdog {
    /// The call last seen running, touched only by the timer's serial queue.
    private final class Sample: Sendable {
        struct Seen {
            var sequence: UInt64 = 0
            var label: UInt = 0
            var firstSeen: UInt64 = 0
            var reported = false
        }

        let seen = Mutex(Seen())
    }

    private let timer: any DispatchSourceTimer

    /// Starts watching `record`; `report` receives the warning.
    init(record: CallRecord, timeout: Duration, report: @escaping @Sendable (PluginLogRecord) -> Void) {
        let timeoutNanoseconds = UInt64(clamping: timeout.nanoseconds)
        let interval = min(max(timeoutNanoseconds / 4, 10_000_000), 1_000_000_000)
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "plugboard.call-watchdog"))
        timer.schedule(deadline: .now() + .nanoseconds(Int(interval)), repeating: .nanoseconds(Int(interval)))
        let sample = Sample()
        timer.setEventHandler {
            var callback: UnsafePointer<CChar>?
            var sequence: UInt64 = 0
            guard let label = pbf_current(record.pointer, &callback, &sequence) else { return }
            let now = MonotonicClock.now()
            let overdue = sample.seen.withLock { seen -> Bool in
                let labelAddress = UInt(bitPattern: label)
                if seen.sequence != sequence || seen.label != labelAddress {
                    seen = Sample.Seen(sequence: sequence, label: labelAddress, firstSeen: now)
                }
                guard !seen.reported, now &- seen.firstSeen >= timeoutNanoseconds else { return false }
                seen.reported = true
                return true
            }
            guard overdue else { return }
            let who = String(cString: label.pointee.who)
            let library = String(cString: label.pointee.library)
            let name = callback.map { String(cString: $0) } ?? "a callback"
            report(.host(.warning, about: who, in: library,
                         "\(who) did not return from \(name) within \(timeout.secondsText)\(PluginLogRecord.place(of: who, in: library)): "
                             + "a plugin in the host's process cannot be stopped, so the host waits for it"))
        }
        timer.resume()
    }

    deinit { timer.cancel() }
}

extension Duration {
    /// "10 s", "2.5 s", "0.25 s".
    var secondsText: String {
        let tenthsOfMillisecond = nanoseconds / 100_000
        let text = String(Double(tenthsOfMillisecond) / 10_000)
        return (text.hasSuffix(".0") ? String(text.dropLast(2)) : text) + " s"
    }
}
