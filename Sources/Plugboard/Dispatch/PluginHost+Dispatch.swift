/// The three synchronous policies, shared by every event that uses them.
///
/// The loops borrow the participant lists instead of copying each element, and
/// with ``CallTiming/perCall`` read the clock once per plugin (the end of one
/// call is the start of the next).
extension PluginHost {
    /// Calls every participant, then ANDs; the `false` answers are the vetoes.
    func callAllAnd<P>(_ event: LifecycleEvent, _ participants: [PluginRegistry.Participant<P>],
                       _ body: (P) -> Bool) -> EventReport {
        var calls = CallRecorder(timing: timing, capacity: participants.count)
        var vetoes: [PluginID] = []
        participants.withUnsafeBufferPointer { list in
            for index in list.indices {
                let answer = body(list[index].plugin)
                calls.record(list[index].id, .bool(answer))
                if !answer { vetoes.append(list[index].id) }
            }
        }
        return calls.report(event, answer: .bool(vetoes.isEmpty), decidedBy: vetoes)
    }

    /// Asks participants in order until one answers true.
    func firstTrueWins<P>(_ event: LifecycleEvent, _ participants: [PluginRegistry.Participant<P>],
                          _ body: (P) -> Bool) -> EventReport {
        var calls = CallRecorder(timing: timing, capacity: participants.count)
        let handler: PluginID? = participants.withUnsafeBufferPointer { list in
            for index in list.indices {
                let answer = body(list[index].plugin)
                calls.record(list[index].id, .bool(answer))
                if answer { return list[index].id }
            }
            return nil
        }
        return calls.report(event, answer: .bool(handler != nil), decidedBy: handler.map { [$0] } ?? [])
    }

    /// Calls every participant, in priority order or reversed; there is no answer.
    func broadcast<P>(_ event: LifecycleEvent, _ participants: [PluginRegistry.Participant<P>],
                      reversed: Bool = false, _ body: (P) -> Void) -> EventReport {
        var calls = CallRecorder(timing: timing, capacity: participants.count)
        participants.withUnsafeBufferPointer { list in
            for step in list.indices {
                let index = reversed ? list.count - 1 - step : step
                body(list[index].plugin)
                calls.record(list[index].id, .returned)
            }
        }
        return calls.report(event, answer: .none, decidedBy: [])
    }
}

/// Collects the calls of one event and their durations.
struct CallRecorder {
    private let perCall: Bool
    private let start: UInt64
    private var last: UInt64
    private var calls: [PluginCall] = []

    init(timing: CallTiming, capacity: Int) {
        perCall = timing == .perCall
        start = MonotonicClock.now()
        last = start
        calls.reserveCapacity(capacity)
    }

    mutating func record(_ plugin: PluginID, _ answer: PluginAnswer) {
        var duration: UInt64?
        if perCall {
            let now = MonotonicClock.now()
            duration = now &- last
            last = now
        }
        calls.append(PluginCall(plugin: plugin, answer: answer, nanoseconds: duration))
    }

    func report(_ event: LifecycleEvent, answer: EventAnswer, decidedBy: [PluginID]) -> EventReport {
        let end = perCall ? last : MonotonicClock.now()
        return EventReport(event: event, answer: answer, calls: calls, decidedBy: decidedBy, notes: [],
                           nanoseconds: end &- start)
    }
}
