/// The three synchronous policies, shared by every event that uses them. Each
/// call is timed with one clock read per plugin (the end of one call is the
/// start of the next).
extension PluginHost {
    /// Calls every participant, then ANDs; the `false` answers are the vetoes.
    func callAllAnd<P>(_ event: LifecycleEvent, _ participants: [PluginRegistry.Participant<P>],
                       _ body: (P) -> Bool) -> EventReport {
        var calls: [PluginCall] = []
        calls.reserveCapacity(participants.count)
        var vetoes: [PluginID] = []
        let start = MonotonicClock.now()
        var last = start
        for participant in participants {
            let answer = body(participant.plugin)
            let now = MonotonicClock.now()
            calls.append(PluginCall(plugin: participant.id, answer: .bool(answer), nanoseconds: now &- last))
            last = now
            if !answer { vetoes.append(participant.id) }
        }
        return EventReport(event: event, answer: .bool(vetoes.isEmpty), calls: calls, decidedBy: vetoes,
                           notes: [], nanoseconds: last &- start)
    }

    /// Asks participants in order until one answers true.
    func firstTrueWins<P>(_ event: LifecycleEvent, _ participants: [PluginRegistry.Participant<P>],
                          _ body: (P) -> Bool) -> EventReport {
        var calls: [PluginCall] = []
        let start = MonotonicClock.now()
        var last = start
        for participant in participants {
            let answer = body(participant.plugin)
            let now = MonotonicClock.now()
            calls.append(PluginCall(plugin: participant.id, answer: .bool(answer), nanoseconds: now &- last))
            last = now
            if answer {
                return EventReport(event: event, answer: .bool(true), calls: calls, decidedBy: [participant.id],
                                   notes: [], nanoseconds: last &- start)
            }
        }
        return EventReport(event: event, answer: .bool(false), calls: calls, decidedBy: [], notes: [],
                           nanoseconds: last &- start)
    }

    /// Calls every participant in the given order; there is no answer.
    func broadcast<P, Order: Sequence<PluginRegistry.Participant<P>>>(
        _ event: LifecycleEvent, _ participants: Order, _ body: (P) -> Void
    ) -> EventReport {
        var calls: [PluginCall] = []
        calls.reserveCapacity(participants.underestimatedCount)
        let start = MonotonicClock.now()
        var last = start
        for participant in participants {
            body(participant.plugin)
            let now = MonotonicClock.now()
            calls.append(PluginCall(plugin: participant.id, answer: .returned, nanoseconds: now &- last))
            last = now
        }
        return EventReport(event: event, answer: .none, calls: calls, decidedBy: [], notes: [],
                           nanoseconds: last &- start)
    }
}
