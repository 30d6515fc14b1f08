import Dispatch
import Synchronization

/// Collects the answers to one remote notification and gives the reduced
/// answer exactly once: when the last plugin answered, or at the deadline,
/// whichever comes first. Answers may arrive on any thread, also during the
/// dispatch loop; repeated, late or malformed answers are ignored and reported, once a plugin.
final class FetchAggregation: Sendable {
    private struct State {
        var answers: [PluginAnswer?]
        var durations: [UInt64]
        var remaining: Int
        var notes: [String] = []
        /// The plugins whose repeated, late or malformed answers were reported: each once, as a plugin
        /// answering in a loop (a worker can send millions of answers) must not grow the notes, or
        /// the log, without end.
        var complained: Set<Int> = []
        var report: EventReport?
        /// What runs once the report is given (``whenFinished(_:)``).
        var afterFinish: [@Sendable () -> Void] = []
    }

    /// Deadlines fire on their own serial queue, which gets a thread even when
    /// every shared worker is blocked (for instance in a caller that waits).
    private static let deadlines = DispatchQueue(label: "plugboard.notification-deadlines")

    private let ids: [PluginID]
    private let denied: [PluginID]
    private let start: UInt64
    private let state: Mutex<State>
    private let finished = DispatchSemaphore(value: 0)
    private let onFinish: @Sendable (EventReport) -> Void
    private let warn: @Sendable (PluginID, String) -> Void

    /// An aggregation of the answers of `ids`; `denied` are the participants the host's policy kept out (reported).
    init(ids: [PluginID], denied: [PluginID] = [], onFinish: @escaping @Sendable (EventReport) -> Void,
         warn: @escaping @Sendable (PluginID, String) -> Void) {
        self.ids = ids
        self.denied = denied
        start = MonotonicClock.now()
        state = Mutex(State(answers: Array(repeating: nil, count: ids.count),
                            durations: Array(repeating: 0, count: ids.count), remaining: ids.count))
        self.onFinish = onFinish
        self.warn = warn
    }

    /// The completion handed to the plugin at `index`.
    func completion(for index: Int) -> FetchCompletion {
        FetchCompletion(answer: { self.record(index, .fetch($0)) }, misuse: { self.misuse(index, $0) },
                        abstention: { self.record(index, .notTakingPart) })
    }

    /// Ends the wait at `deadline` from now, unless every plugin answered before; with a
    /// `confinement`, the deadline is handed to the dispatch thread like an answer. With no
    /// plugins, gives the reduced answer at once.
    func expire(after deadline: Duration, through confinement: DispatchThreadConfinement? = nil) {
        guard !ids.isEmpty else {
            finish { $0.report = self.reduce(&$0) }
            return
        }
        let (seconds, attoseconds) = deadline.components
        let nanoseconds = max(0, seconds) &* 1_000_000_000 &+ max(0, attoseconds / 1_000_000_000)
        Self.deadlines.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) {
            if let confinement { confinement.deliver { self.expireNow() } } else { self.expireNow() }
        }
    }

    /// Runs `action` once the reduced answer exists: at once when it does, else on the thread that
    /// made it, before ``waitForReport()`` returns it and `onFinish` receives it.
    func whenFinished(_ action: @escaping @Sendable () -> Void) {
        let finishedAlready = state.withLock { state -> Bool in
            guard state.report == nil else { return true }
            state.afterFinish.append(action)
            return false
        }
        if finishedAlready { action() }
    }

    /// Whether the reduced answer exists.
    var isFinished: Bool { state.withLock { $0.report != nil } }

    /// Blocks until the reduced answer exists and returns it.
    func waitForReport() -> EventReport {
        finished.wait()
        finished.signal()
        return state.withLock { $0.report } ?? expireNow()
    }

    @discardableResult
    private func expireNow() -> EventReport {
        var report: EventReport?
        finish { state in
            if let done = state.report { report = done; return }
            let now = MonotonicClock.now()
            for index in state.answers.indices where state.answers[index] == nil {
                state.answers[index] = .timedOut
                state.durations[index] = now &- start
            }
            state.report = reduce(&state)
            report = state.report
        }
        return report ?? reduceEmpty()
    }

    private func record(_ index: Int, _ answer: PluginAnswer) {
        var problem: String?
        finish { state in
            if state.report != nil {
                if state.complained.insert(index).inserted { problem = Self.lateAnswer(describe(answer)) }
            } else if let earlier = state.answers[index] {
                guard state.complained.insert(index).inserted else { return }
                problem = "answered the remote notification twice (first \(describe(earlier)), then \(describe(answer))); the second answer is ignored"
                state.notes.append("\(ids[index]) " + (problem ?? ""))
            } else {
                state.answers[index] = answer
                state.durations[index] = MonotonicClock.now() &- start
                state.remaining -= 1
                if state.remaining == 0 { state.report = reduce(&state) }
            }
        }
        if let problem { warn(ids[index], problem) }
    }

    /// The warning for an answer (`new-data`, …) that came after the reduced answer was given.
    static func lateAnswer(_ answer: String) -> String {
        "answered the remote notification with \(answer) after the host's answer was given (deadline passed or already answered); ignored"
    }

    private func misuse(_ index: Int, _ problem: String) {
        let first = state.withLock { state in
            guard state.complained.insert(index).inserted else { return false }
            state.notes.append("\(ids[index]) \(problem)")
            return true
        }
        if first { warn(ids[index], problem) }
    }

    /// Runs `change` under the lock; if it produced the report, runs what waited for it
    /// (``whenFinished(_:)``), then delivers it once, outside the lock.
    private func finish(_ change: (inout State) -> Void) {
        let (delivered, afterFinish) = state.withLock { state -> (EventReport?, [@Sendable () -> Void]) in
            let before = state.report != nil
            change(&state)
            guard !before, let report = state.report else { return (nil, []) }
            defer { state.afterFinish = [] }
            return (report, state.afterFinish)
        }
        if let delivered {
            afterFinish.forEach { $0() }
            finished.signal()
            onFinish(delivered)
        }
    }

    private func reduce(_ state: inout State) -> EventReport {
        let answered = zip(ids, state.answers).compactMap { id, answer -> (PluginID, FetchResult)? in
            if case .fetch(let result) = answer { (id, result) } else { nil }
        }
        let result = answered.map(\.1).reduce(nil as FetchResult?) { best, next in
            best.map { FetchResult.strongest($0, next) } ?? next
        } ?? .noData
        let calls = ids.indices.map {
            PluginCall(plugin: ids[$0], answer: state.answers[$0] ?? .timedOut, nanoseconds: state.durations[$0])
        }
        return EventReport(event: .remoteNotification, answer: .fetch(result), calls: calls,
                           decidedBy: answered.filter { $0.1 == result }.map(\.0), notes: state.notes,
                           denied: denied, nanoseconds: MonotonicClock.now() &- start)
    }

    private func reduceEmpty() -> EventReport {
        EventReport(event: .remoteNotification, answer: .fetch(.noData), calls: [], decidedBy: [], notes: [],
                    denied: denied, nanoseconds: 0)
    }

    private func describe(_ answer: PluginAnswer) -> String {
        switch answer {
        case .fetch(let result): result.rawValue
        case .timedOut: "timed out"
        case .notTakingPart: "not taking part"
        case .bool(let value): String(value)
        case .returned: "returned"
        case .failed: "failed"
        }
    }
}
