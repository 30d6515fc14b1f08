import CFaultReporter

/// How the host calls plugin code: every event callback, observer delivery, saved-state call and
/// plugin function goes through one of its two forms, which record the call for fault and
/// timeout messages (``CallRecord``, read by the fault handler and the ``CallWatchdog``), time
/// it, and run the host's ``CallDecorators`` in their fixed order, so a call path cannot
/// leave one out.
///
/// - The per-event form, ``callInOrder(_:_:reversed:timing:_:)`` then ``reported(_:of:)``: one
///   event's calls, a loop over its concern's roster with no decorator work per call.
/// - The per-call form, ``call(_:of:traced:answer:_:)``: one call of one plugin.
///
/// A value made once per host; a function runs on any thread, so it is Sendable.
struct PluginCallSite: Sendable {
    /// The host's dispatch-thread record.
    let record: CallRecord
    /// The host's decorators.
    let decorators: CallDecorators

    /// Puts `registry` in dispatch order for calls about to be made from this thread, which under
    /// thread confinement is the dispatch thread from now on.
    @inline(__always)
    func prepare(_ registry: PluginRegistry) {
        decorators.confinement?.adopt()
        registry.prepare()
    }

    /// Logs the plugins the authorization decorator keeps out of `callback` (a call of
    /// `concern`), once per event or saved-state operation, before the calls.
    ///
    /// This and the decorators' other work in the per-event form stay out of line, so that the
    /// typed event methods, which inline the loop, stay small.
    @inline(never)
    func logDenials(_ callback: StaticString, _ concern: PluginConcern, _ denied: [PluginID]) {
        guard !denied.isEmpty, let authorization = decorators.authorization else { return }
        authorization.logDenials(callback, concern, denied)
    }

    /// Calls the participants of `roster`, `event`'s concern's, in order (or reversed) while
    /// `call` returns true: logs the denials first, records each call in ``record``, times the
    /// calls as `timing` says (per call, the end of one call is the start of the next), and
    /// after the last one delivers what plugin threads sent meanwhile (thread confinement).
    /// The event's report, made from the run, goes to ``reported(_:of:)``.
    @inline(__always)
    func callInOrder<Table>(
        _ event: LifecycleEvent.Kind, _ roster: Roster<Table>, reversed: Bool, timing: CallTiming,
        _ call: (_ index: Int, _ participant: Participant<Table>) -> Bool
    ) -> DispatchRun {
        if !roster.denied.isEmpty { logDenials(event.callbackName, event.concern, roster.denied) }
        let run = recordedInOrder(event, roster, reversed: reversed, timing: timing, call)
        if decorators.confines { deliverConfined() }
        return run
    }

    /// The end of the per-event form: traces each call of `report`, `event`'s, made to a traced
    /// plugin. Called once the report exists: after the calls, or for a remote notification when
    /// the last answer or the deadline came.
    @inline(__always)
    func reported(_ report: EventReport, of event: LifecycleEvent) {
        if decorators.traces { trace(report, of: event) }
    }

    /// Delivers what plugin threads sent during an event's calls (thread confinement).
    @inline(never)
    private func deliverConfined() {
        decorators.confinement?.drain()
    }

    /// Traces the calls of `report`, `event`'s.
    @inline(never)
    private func trace(_ report: EventReport, of event: LifecycleEvent) {
        decorators.tracer?.record(report) { event }
    }

    /// The loop of ``callInOrder(_:_:reversed:timing:_:)``: one run of calls in ``record``, one
    /// label store per call, and with ``CallTiming/perCall`` one clock read per call.
    @inline(__always)
    private func recordedInOrder<Table>(
        _ event: LifecycleEvent.Kind, _ roster: Roster<Table>, reversed: Bool, timing: CallTiming,
        _ call: (_ index: Int, _ participant: Participant<Table>) -> Bool
    ) -> DispatchRun {
        let count = roster.count
        var made = 0
        let record = record
        let outer = record.begin(event.callbackName)
        defer { record.end(resuming: outer) }
        let start = MonotonicClock.now()
        guard timing == .perCall else {
            roster.participants.withUnsafeBufferPointer { participants in
                while made < count {
                    let index = reversed ? count - 1 - made : made
                    made += 1
                    record.enter(participants[index].label)
                    if !call(index, participants[index].participant) { break }
                }
            }
            return DispatchRun(made: made, durations: nil, nanoseconds: MonotonicClock.now() &- start)
        }
        var last = start
        let durations = count > 1 ? CallDurations(capacity: count) : nil
        roster.participants.withUnsafeBufferPointer { participants in
            while made < count {
                let index = reversed ? count - 1 - made : made
                record.enter(participants[index].label)
                let more = call(index, participants[index].participant)
                let now = MonotonicClock.now()
                durations?.set(made, now &- last)
                last = now
                made += 1
                if !more { break }
            }
        }
        return DispatchRun(made: made, durations: durations, nanoseconds: last &- start)
    }

    /// Runs `body`, one call of `plugin`'s code of `kind` (nil `plugin`: the host's own code, an
    /// embedding application's observer): records it and times it as `kind` says, then delivers
    /// what plugin threads sent meanwhile (thread confinement, unless `kind` is a function), then
    /// traces it, `traced` giving the call's text and `answer` the answer's (nil: no line).
    /// Returns the answer and, when timed, the duration. A recorded call is a run of its own:
    /// the watchdog and the fault handler name one call by (run, plugin), and nothing else is
    /// blamed on the plugin once it returned.
    @inline(__always)
    func call<Answer>(_ kind: PluginCallKind, of plugin: PluginID?, traced shown: () -> String,
                      answer shownAnswer: (Answer) -> String?, _ body: () -> Answer) -> (answer: Answer, nanoseconds: UInt64?) {
        let tracer = decorators.traces ? decorators.tracer.flatMap { tracer in plugin.flatMap { tracer.traces($0) } == true ? tracer : nil } : nil
        let timed = kind.isTimed(traced: tracer != nil)
        let start = timed ? MonotonicClock.now() : 0
        let answer: Answer
        if let (callback, label) = kind.recorded {
            let outer = record.begin(callback)
            record.enter(label)
            answer = body()
            record.end(resuming: outer)
        } else {
            answer = body()
        }
        let nanoseconds = timed ? MonotonicClock.now() &- start : nil
        if kind.deliversConfined { decorators.confinement?.drain() }
        if let tracer, let plugin, let text = shownAnswer(answer) {
            tracer.line(plugin, shown(), text, nanoseconds)
        }
        return (answer, nanoseconds)
    }
}

/// What one call of the per-call form (``PluginCallSite/call(_:of:traced:answer:_:)``) runs,
/// which decides how it is recorded and timed.
enum PluginCallKind {
    /// A delivery to a notification observer, timed as `timing` says, traced or not (its report
    /// carries the duration, as an event's does), and recorded as ``observerCallback`` of
    /// `label`'s plugin when it has one (a C observer in this process).
    case observer(CallTiming, label: UnsafePointer<pbf_label_t>?)
    /// `save_state` or `restore_state` (`callback`) of `label`'s plugin, timed only when traced
    /// (its report carries no duration).
    case savedState(StaticString, label: UnsafePointer<pbf_label_t>)
    /// A plugin function, timed only when traced. The function engine records the C call
    /// itself, in the record of the thread it runs on; and as a function may run inside
    /// another plugin's callback, or on any thread, nothing is delivered after it.
    case function

    /// What fault and timeout messages call an observer callback.
    static let observerCallback: StaticString = "notification observer"

    /// The callback and label the call is recorded under; nil when it records nothing here.
    var recorded: (StaticString, UnsafePointer<pbf_label_t>)? {
        switch self {
        case .observer(_, let label): label.map { (Self.observerCallback, $0) }
        case .savedState(let callback, let label): (callback, label)
        case .function: nil
        }
    }

    /// Whether the call is timed, its plugin being `traced` or not.
    func isTimed(traced: Bool) -> Bool {
        if case .observer(let timing, _) = self { timing == .perCall } else { traced }
    }

    /// Whether what plugin threads sent during the call is delivered after it (thread confinement).
    var deliversConfined: Bool {
        if case .function = self { false } else { true }
    }
}

/// What one pass over a roster did: how many participants it called, each
/// call's duration when more than one was timed per call, and the event's duration.
struct DispatchRun {
    /// Participants called.
    let made: Int
    /// Each call's duration in call order, with ``CallTiming/perCall`` over more than one
    /// participant (one call's duration is ``nanoseconds``).
    let durations: CallDurations?
    /// From the first call to the end of the last.
    let nanoseconds: UInt64
}

/// The durations of one event's calls, in call order, when it calls more than one plugin timed per
/// call: the one allocation of such an event. Only the dispatch loop that creates it writes to it
/// (before the report exists); afterwards it is read-only, hence Sendable.
struct CallDurations: @unchecked Sendable {
    /// Tail-allocated durations.
    final class Storage: ManagedBuffer<Void, UInt64> {}

    private let storage: Storage

    /// Room for `capacity` durations, not initialized (a trivial type: the loop writes each before it is read).
    init(capacity: Int) {
        storage = unsafeDowncast(Storage.create(minimumCapacity: capacity) { _ in () }, to: Storage.self)
    }

    /// Sets the duration of call `index` (below the capacity), during the dispatch loop only.
    @inline(__always)
    func set(_ index: Int, _ nanoseconds: UInt64) {
        storage.withUnsafeMutablePointerToElements { $0[index] = nanoseconds }
    }

    /// The duration of call `index`, which the loop wrote.
    subscript(index: Int) -> UInt64 {
        storage.withUnsafeMutablePointerToElements { $0[index] }
    }
}
