/// The three synchronous policies, shared by every event that uses them.
///
/// Each event hands its roster and two ways of calling a participant: `native`
/// calls a C plugin's vtable slot directly (the event converts its arguments to
/// C once, not per plugin), `swift` calls a Swift plugin through its protocol.
/// The order is the roster's, whatever the mix of C and Swift plugins. With
/// ``CallTiming/perCall`` the clock is read once per plugin (the end of one call
/// is the start of the next); with ``CallTiming/perEvent``, at the start and the
/// end of the event only.
extension PluginHost {
    /// Calls every participant, then ANDs; the `false` answers are the vetoes.
    @inline(__always)
    func callAllAnd<P, Table>(_ event: LifecycleEvent, _ roster: Roster<P, Table>,
                              native: (Table, UnsafeMutableRawPointer?) -> Bool,
                              swift: (P) -> Bool) -> EventReport {
        var vetoes: [PluginID] = []
        let run = callInOrder(roster, reversed: false) { index, callee in
            let answer = if let table = callee.table { native(table, callee.ctx) } else { swift(roster.plugins[index]) }
            if !answer { vetoes.append(roster.ids[index]) }
            return true
        }
        return EventReport(event: event, answer: .bool(vetoes.isEmpty),
                           trace: run.trace(roster, reversed: false, answers: .trueUnlessDecided),
                           decidedBy: vetoes, nanoseconds: run.nanoseconds)
    }

    /// Asks participants in order until one answers true.
    @inline(__always)
    func firstTrueWins<P, Table>(_ event: LifecycleEvent, _ roster: Roster<P, Table>,
                                 native: (Table, UnsafeMutableRawPointer?) -> Bool,
                                 swift: (P) -> Bool) -> EventReport {
        var handler: [PluginID] = []
        let run = callInOrder(roster, reversed: false) { index, callee in
            let answer = if let table = callee.table { native(table, callee.ctx) } else { swift(roster.plugins[index]) }
            if answer { handler = [roster.ids[index]] }
            return !answer
        }
        return EventReport(event: event, answer: .bool(!handler.isEmpty),
                           trace: run.trace(roster, reversed: false, answers: .falseUnlessDecided),
                           decidedBy: handler, nanoseconds: run.nanoseconds)
    }

    /// Calls every participant, in priority order or reversed; there is no answer.
    @inline(__always)
    func broadcast<P, Table>(_ event: LifecycleEvent, _ roster: Roster<P, Table>, reversed: Bool = false,
                             native: (Table, UnsafeMutableRawPointer?) -> Void,
                             swift: (P) -> Void) -> EventReport {
        let run = callInOrder(roster, reversed: reversed) { index, callee in
            if let table = callee.table { native(table, callee.ctx) } else { swift(roster.plugins[index]) }
            return true
        }
        return EventReport(event: event, answer: .none, trace: run.trace(roster, reversed: reversed, answers: .returned),
                           decidedBy: [], nanoseconds: run.nanoseconds)
    }

    /// Calls the participants of `roster` in order (or reversed) while `call`
    /// returns true, timing them as ``timing`` says.
    @inline(__always)
    func callInOrder<P, Table>(_ roster: Roster<P, Table>, reversed: Bool,
                               _ call: (_ index: Int, _ callee: Callee<Table>) -> Bool) -> DispatchRun {
        let count = roster.count
        var made = 0
        let start = MonotonicClock.now()
        guard timing == .perCall else {
            roster.callees.withUnsafeBufferPointer { callees in
                while made < count {
                    let index = reversed ? count - 1 - made : made
                    made += 1
                    if !call(index, callees[index]) { break }
                }
            }
            return DispatchRun(made: made, durations: nil, nanoseconds: MonotonicClock.now() &- start)
        }
        var last = start
        let durations = CallDurations(capacity: count)
        durations.withUnsafeMutablePointerToElements { durations in
            roster.callees.withUnsafeBufferPointer { callees in
                while made < count {
                    let index = reversed ? count - 1 - made : made
                    let more = call(index, callees[index])
                    let now = MonotonicClock.now()
                    durations[made] = now &- last
                    last = now
                    made += 1
                    if !more { break }
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
    func trace<P, Table>(_ roster: Roster<P, Table>, reversed: Bool, answers: CallAnswers) -> CallTrace {
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
