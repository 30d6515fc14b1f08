import PlugboardWorkerProtocol

/// The synchronous policies, shared by every event that uses them.
///
/// An event hands ``dispatch(_:_:native:swift:remote:)`` its roster and three
/// ways of calling a participant: `native` calls a C plugin's vtable slot
/// directly (the event converts its arguments to C once, not per plugin),
/// `swift` calls a Swift plugin through its protocol, `remote` gives the event
/// as a worker's `call` carries it (made only when a worker takes part). The
/// event's ``LifecycleEvent/policy`` picks the loop. The order is the roster's,
/// whatever the mix of participants. With ``CallTiming/perCall`` the clock is
/// read once per plugin (the end of one call is the start of the next); with
/// ``CallTiming/perEvent``, at the start and the end of the event only.
extension PluginHost {
    /// Calls `roster`'s participants as `event`'s policy says and reduces their
    /// answers. For broadcasts, the calls' answers are ignored. A participant
    /// whose worker fails counts as if it had not answered (no veto, not
    /// handled) and is reported in the report's ``EventReport/failures``.
    @inline(__always)
    func dispatch<Conformance, Table>(_ event: LifecycleEvent, _ roster: Roster<Conformance, Table>,
                                      native: (Table, UnsafeMutableRawPointer?) -> Bool,
                                      swift: (Conformance) -> Bool,
                                      remote: () -> WorkerEvent) -> EventReport {
        if !roster.denied.isEmpty { logDenials(event.callbackName, event.concern, roster.denied) }
        let reversed = event.policy == .broadcastReverse
        var decidedBy: [PluginID] = []
        var failures: [PluginFailure] = []
        let answers: CallAnswers
        let run: DispatchRun
        switch event.policy {
        case .callAllAnd:
            answers = .trueUnlessDecided
            run = callInOrder(event, roster, reversed: false) { index, participant in
                if !call(participant, index, roster, event, unanswered: true, native, swift, remote, &failures) {
                    decidedBy.append(roster.ids[index])
                }
                return true
            }
        case .firstTrueWins:
            answers = .falseUnlessDecided
            run = callInOrder(event, roster, reversed: false) { index, participant in
                guard call(participant, index, roster, event, unanswered: false, native, swift, remote, &failures) else {
                    return true
                }
                decidedBy = [roster.ids[index]]
                return false
            }
        case .broadcast, .broadcastReverse, .callAllStrongestFetch:
            answers = .returned
            run = callInOrder(event, roster, reversed: reversed) { index, participant in
                _ = call(participant, index, roster, event, unanswered: true, native, swift, remote, &failures)
                return true
            }
        }
        let answer: EventAnswer = switch answers {
        case .returned: .none
        case .trueUnlessDecided: .bool(decidedBy.isEmpty)
        case .falseUnlessDecided: .bool(!decidedBy.isEmpty)
        }
        var report = EventReport(event: event, answer: answer, trace: run.trace(roster, reversed: reversed, answers: answers),
                                 decidedBy: decidedBy, failures: failures, denied: roster.denied, nanoseconds: run.nanoseconds)
        if isDecorated { afterEvent(report, remote) }
        report.notifications = deliverNotifications()
        return report
    }

    /// One call of one participant: the one place that switches on how a participant is reached.
    /// `unanswered` is what a participant whose worker failed counts as.
    @inline(__always)
    private func call<Conformance, Table>(_ participant: Participant<Table>, _ index: Int,
                                          _ roster: Roster<Conformance, Table>, _ event: LifecycleEvent,
                                          unanswered: Bool,
                                          _ native: (Table, UnsafeMutableRawPointer?) -> Bool,
                                          _ swift: (Conformance) -> Bool, _ remote: () -> WorkerEvent,
                                          _ failures: inout [PluginFailure]) -> Bool {
        switch participant {
        case .native(let table, let ctx, _):
            return native(table, ctx)
        case .swift(let conformance):
            return swift(roster.conformances[conformance])
        case .worker(let plugin):
            switch callWorker(plugin, remote(), callback: event.callbackName, id: roster.ids[index]) {
            case .success(.bool(let answer)): return answer
            case .success(.returned), .success(.pending): return true
            case .success(.notTakingPart), .success(.state), .success(.refused): return unanswered
            case .failure(let failure):
                failures.append(failure)
                return unanswered
            }
        }
    }

    /// Calls the participants of `roster` in order (or reversed) while `call`
    /// returns true, timing them as ``timing`` says and recording each call in
    /// ``calls`` for fault and timeout messages.
    @inline(__always)
    func callInOrder<Conformance, Table>(
        _ event: LifecycleEvent, _ roster: Roster<Conformance, Table>, reversed: Bool,
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
    func trace<Conformance, Table>(_ roster: Roster<Conformance, Table>, reversed: Bool, answers: CallAnswers) -> CallTrace {
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
