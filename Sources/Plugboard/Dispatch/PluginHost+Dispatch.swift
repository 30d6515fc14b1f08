import PlugboardWorkerProtocol

/// Dispatching one event: its ``LifecycleEvent/Kind/policy`` picks the loop over its concern's
/// roster, and each participant is called through the event's own calls (a C slot, a Swift
/// method or a worker's `call`), whatever the mix of participants. The event's arguments are
/// converted to C once, not per plugin. With ``CallTiming/perCall`` the clock is read once per
/// plugin (the end of one call is the start of the next); with ``CallTiming/perEvent``, at the
/// start and the end of the event only.
extension PluginHost {
    /// Dispatches `event` to the plugins of its concern as its policy says, reduces their
    /// answers and reports them; then delivers the notifications posted meanwhile. For
    /// broadcasts, the calls' answers are ignored. A participant whose worker fails counts as
    /// if it had not answered (no veto, not handled) and is reported in the report's
    /// ``EventReport/failures``. A remote notification waits for its deadline at most.
    /// Always inlined, so that each typed method (``willTerminate()``…) is this loop for its
    /// one event, with the event's calls reduced to its slot.
    @discardableResult @inline(__always)
    public func dispatch(_ event: LifecycleEvent) -> EventReport {
        if case .remoteNotification(let userInfo, let deadline) = event {
            return didReceiveRemoteNotification(userInfo: userInfo.string, deadline: deadline)
        }
        return event.withCArguments { arguments in
            let registry = prepared
            return switch event.kind.concern {
            case .launch: dispatch(event, arguments, registry.launch)
            case .openURL: dispatch(event, arguments, registry.openURL)
            case .userActivity: dispatch(event, arguments, registry.userActivity)
            case .remoteNotifications: dispatch(event, arguments, registry.remoteNotifications)
            case .memory: dispatch(event, arguments, registry.memory)
            case .protectedData: dispatch(event, arguments, registry.protectedData)
            case .appState: dispatch(event, arguments, registry.appState)
            case .termination: dispatch(event, arguments, registry.termination)
            case .savedState: dispatch(event, arguments, registry.savedState)
            }
        }
    }

    /// Dispatches `event` to `roster`, its concern's, whose C participants carry their vtable of
    /// the concern as `Table`: specialized per concern.
    @inline(__always)
    private func dispatch<Table>(_ event: LifecycleEvent, _ arguments: CEventArguments, _ roster: Roster<Table>) -> EventReport {
        let kind = event.kind
        if !roster.denied.isEmpty { logDenials(kind.callbackName, kind.concern, roster.denied) }
        let reversed = kind.policy == .broadcastReverse
        var decidedBy: [PluginID] = []
        var failures: [PluginFailure] = []
        let answers: CallAnswers
        let run: DispatchRun
        switch kind.policy {
        case .callAllAnd:
            answers = .trueUnlessDecided
            run = callInOrder(kind, roster, reversed: false) { index, participant in
                if !call(participant, index, roster, event, arguments, unanswered: true, &failures) {
                    decidedBy.append(roster.ids[index])
                }
                return true
            }
        case .firstTrueWins:
            answers = .falseUnlessDecided
            run = callInOrder(kind, roster, reversed: false) { index, participant in
                guard call(participant, index, roster, event, arguments, unanswered: false, &failures) else {
                    return true
                }
                decidedBy = [roster.ids[index]]
                return false
            }
        case .broadcast, .broadcastReverse, .callAllStrongestFetch:
            answers = .returned
            run = callInOrder(kind, roster, reversed: reversed) { index, participant in
                _ = call(participant, index, roster, event, arguments, unanswered: true, &failures)
                return true
            }
        }
        let answer: EventAnswer = switch answers {
        case .returned: .none
        case .trueUnlessDecided: .bool(decidedBy.isEmpty)
        case .falseUnlessDecided: .bool(!decidedBy.isEmpty)
        }
        var report = EventReport(event: kind, answer: answer, trace: run.trace(roster, reversed: reversed, answers: answers),
                                 decidedBy: decidedBy, failures: failures, denied: roster.denied, nanoseconds: run.nanoseconds)
        if isDecorated { afterEvent(report, event) }
        report.notifications = deliverNotifications()
        return report
    }

    /// One event call of one participant, by how it is reached.
    /// `unanswered` is what a participant that does not take part in the event (a NULL slot),
    /// or whose worker failed, counts as.
    @inline(__always)
    private func call<Table>(_ participant: Participant<Table>, _ index: Int, _ roster: Roster<Table>, _ event: LifecycleEvent,
                      _ arguments: CEventArguments, unanswered: Bool, _ failures: inout [PluginFailure]) -> Bool {
        switch participant {
        case .native(let table, let ctx, _):
            return event.callSlot(table, ctx: ctx, arguments, completion: { nil }) ?? unanswered
        case .swift(let conformance):
            return event.callSwift(roster.conformances[conformance], completion: { nil }) ?? unanswered
        case .worker(let plugin):
            return callWorker(plugin, .event(event), id: roster.ids[index]).eventAnswer(unanswered: unanswered, failures: &failures)
        }
    }

    /// Calls the participants of `roster` in order (or reversed) while `call`
    /// returns true, timing them as ``timing`` says and recording each call in
    /// ``calls`` for fault and timeout messages.
    @inline(__always)
    func callInOrder<Table>(
        _ event: LifecycleEvent.Kind, _ roster: Roster<Table>, reversed: Bool,
        _ call: (_ index: Int, _ participant: Participant<Table>) -> Bool
    ) -> DispatchRun {
        let count = roster.count
        var made = 0
        let record = calls
        record.begin(event.callbackName)
        defer { record.leave() }
        let start = MonotonicClock.now()
        guard timing == .perCall else {
            roster.participants.withUnsafeBufferPointer { participants in
                roster.labels.withUnsafeBufferPointer { labels in
                    while made < count {
                        let index = reversed ? count - 1 - made : made
                        made += 1
                        record.enter(labels[index])
                        if !call(index, participants[index]) { break }
                    }
                }
            }
            return DispatchRun(made: made, durations: nil, nanoseconds: MonotonicClock.now() &- start)
        }
        var last = start
        let durations = CallDurations(capacity: count)
        durations.withUnsafeMutablePointerToElements { durations in
            roster.participants.withUnsafeBufferPointer { participants in
                roster.labels.withUnsafeBufferPointer { labels in
                    while made < count {
                        let index = reversed ? count - 1 - made : made
                        record.enter(labels[index])
                        let more = call(index, participants[index])
                        let now = MonotonicClock.now()
                        durations[made] = now &- last
                        last = now
                        made += 1
                        if !more { break }
                    }
                }
            }
        }
        return DispatchRun(made: made, durations: durations, nanoseconds: last &- start)
    }
}

/// What one pass over a roster did: how many participants it called, each
/// call's duration when timed per call, and the event's duration.
struct DispatchRun {
    /// Participants called.
    let made: Int
    /// Each call's duration in call order, with ``CallTiming/perCall``.
    let durations: CallDurations?
    /// From the first call to the end of the last.
    let nanoseconds: UInt64

    /// The report's trace of this run over `roster`.
    func trace<Table>(_ roster: Roster<Table>, reversed: Bool, answers: CallAnswers) -> CallTrace {
        .compact(ids: roster.ids, made: made, reversed: reversed, answers: answers, durations: durations)
    }
}

/// The durations of one event's calls, in call order: the one allocation of an
/// event timed per call. Only the dispatch loop that creates it writes to it
/// (before the report exists); afterwards it is read-only, hence Sendable.
struct CallDurations: @unchecked Sendable {
    /// Tail-allocated durations.
    final class Storage: ManagedBuffer<Void, UInt64> {}

    private let storage: Storage

    /// Room for `capacity` durations, not initialized (a trivial type: the loop writes each before it is read).
    init(capacity: Int) {
        storage = unsafeDowncast(Storage.create(minimumCapacity: capacity) { _ in () }, to: Storage.self)
    }

    /// Gives `body` the durations to write, during the dispatch loop only.
    func withUnsafeMutablePointerToElements<R>(_ body: (UnsafeMutablePointer<UInt64>) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointerToElements(body)
    }

    /// The duration of call `index`, which the loop wrote.
    subscript(index: Int) -> UInt64 {
        storage.withUnsafeMutablePointerToElements { $0[index] }
    }
}
