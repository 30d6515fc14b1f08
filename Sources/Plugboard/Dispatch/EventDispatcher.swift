import PlugboardWorkerProtocol

/// Dispatches lifecycle events to the registered plugins: an event's ``LifecycleEvent/Kind/policy``
/// picks the loop over its concern's roster, run by the call site's per-event form
/// (``PluginCallSite/callInOrder(_:_:reversed:timing:_:)``), and each participant is called
/// through the event's own calls (a C slot, a Swift method or a worker's `call`), whatever the
/// mix of participants. The event's arguments are converted to C once, not per plugin. After an
/// event's calls, the notifications posted meanwhile are delivered.
final class EventDispatcher {
    /// The plugins, one roster per concern.
    let registry: PluginRegistry
    /// How every plugin call is made: recorded, timed and decorated.
    let callSite: PluginCallSite
    /// Reaches the participants in workers.
    let workers: WorkerSupervisor
    /// Delivers the notifications posted during an event, after its calls.
    let notifications: NotificationDeliverer
    /// Where a remote notification's late or repeated answers are reported.
    let log: PluginHost.LogHandler

    /// What is timed; see ``PluginHost/timing``. Read once per event; not checked for exclusive
    /// access at run time (that check cost more than a C callback), which is safe because a
    /// dispatcher is used from one thread.
    @exclusivity(unchecked) var timing: CallTiming
    /// Where the application is, as the launch, app-state and termination events dispatched tell.
    /// Not checked for exclusive access at run time, as ``timing`` is not.
    @exclusivity(unchecked) private(set) var phase = ApplicationPhase()

    /// A dispatcher of `registry`'s plugins, called through `callSite` and, in workers, `workers`;
    /// `notifications` delivers after each event.
    init(registry: PluginRegistry, callSite: PluginCallSite, workers: WorkerSupervisor,
         notifications: NotificationDeliverer, timing: CallTiming, log: @escaping PluginHost.LogHandler) {
        self.registry = registry
        self.callSite = callSite
        self.workers = workers
        self.notifications = notifications
        self.timing = timing
        self.log = log
    }

    /// Dispatches `event`; see ``PluginHost/dispatch(_:)``. Always inlined, so that each typed
    /// method (``PluginHost/willTerminate()``…) is this loop for its one event, with the event's
    /// calls reduced to its slot.
    @inline(__always)
    func dispatch(_ event: LifecycleEvent) -> EventReport {
        if case .remoteNotification(let userInfo, let deadline) = event {
            return remoteNotification(userInfo: userInfo.string, deadline: deadline)
        }
        callSite.prepare(registry)
        phase.note(event)
        return event.withCArguments { arguments in
            return switch event.kind.concern {
            case .launch: dispatch(event, arguments, .passUnretained(registry.launch))
            case .openURL: dispatch(event, arguments, .passUnretained(registry.openURL))
            case .userActivity: dispatch(event, arguments, .passUnretained(registry.userActivity))
            case .remoteNotifications: dispatch(event, arguments, .passUnretained(registry.remoteNotifications))
            case .memory: dispatch(event, arguments, .passUnretained(registry.memory))
            case .protectedData: dispatch(event, arguments, .passUnretained(registry.protectedData))
            case .appState: dispatch(event, arguments, .passUnretained(registry.appState))
            case .termination: dispatch(event, arguments, .passUnretained(registry.termination))
            case .savedState: dispatch(event, arguments, .passUnretained(registry.savedState))
            }
        }
    }

    /// Dispatches `event` to `roster`, its concern's, borrowed from the registry with no reference
    /// count, as is the report's reference to its members.
    @inline(__always)
    private func dispatch<Table>(_ event: LifecycleEvent, _ arguments: CEventArguments, _ roster: Unmanaged<Roster<Table>>) -> EventReport {
        registry.startCalls()
        defer { registry.endCalls() }
        return roster._withUnsafeGuaranteedRef { dispatch(event, arguments, $0) }
    }

    /// Dispatches `event` to `roster`, its concern's, whose C participants carry their vtable of
    /// the concern as `Table`: specialized per concern.
    @inline(__always)
    private func dispatch<Table>(_ event: LifecycleEvent, _ arguments: CEventArguments, _ roster: Roster<Table>) -> EventReport {
        let kind = event.kind
        let timing = timing
        let reversed = kind.policy == .broadcastReverse
        // Made at the first element: nearly every event has none, and dropping nil costs no release.
        var decidedBy: [PluginID]?
        var failures: [PluginFailure]?
        let answers: CallAnswers
        let run: DispatchRun
        switch kind.policy {
        case .callAllAnd:
            answers = .trueUnlessDecided
            run = callSite.callInOrder(kind, roster, reversed: false, timing: timing) { index, participant in
                if !call(participant, index, roster, event, arguments, unanswered: true, &failures) {
                    decidedBy.append(roster.ids[index])
                }
                return true
            }
        case .firstTrueWins:
            answers = .falseUnlessDecided
            run = callSite.callInOrder(kind, roster, reversed: false, timing: timing) { index, participant in
                guard call(participant, index, roster, event, arguments, unanswered: false, &failures) else {
                    return true
                }
                decidedBy = [roster.ids[index]]
                return false
            }
        case .broadcast, .broadcastReverse, .callAllStrongestFetch:
            answers = .returned
            run = callSite.callInOrder(kind, roster, reversed: reversed, timing: timing) { index, participant in
                _ = call(participant, index, roster, event, arguments, unanswered: true, &failures)
                return true
            }
        }
        let answer: EventAnswer = switch answers {
        case .returned: .none
        case .trueUnlessDecided: .bool(decidedBy == nil)
        case .falseUnlessDecided: .bool(decidedBy != nil)
        }
        // The arrays and the run are consumed: the report takes them without a retain and a release each.
        let (made, nanoseconds) = (run.made, run.nanoseconds)
        let report = EventReport(event: kind, answer: answer, members: .passUnretained(roster.members), made: made,
                                 answers: answers, order: CallOrder(reversed: reversed, timed: timing == .perCall),
                                 durations: (consume run).durations, decidedBy: consume decidedBy, failures: consume failures,
                                 nanoseconds: nanoseconds)
        // Finished out of line, and only when traced or posted to. The report, four words, stays
        // in registers: made in memory, its fields were written and at once read back wider, which
        // stalls a store forward.
        guard callSite.decorators.traces || notifications.hasPending else { return report }
        return finish(report, of: event, timing: timing)
    }

    /// `report`, `event`'s, traced if its plugins are, with what was posted during it once delivered.
    @inline(never)
    private func finish(_ report: EventReport, of event: LifecycleEvent, timing: CallTiming) -> EventReport {
        callSite.reported(report, of: event)
        guard notifications.hasPending else { return report }
        return report.with(notifications.deliver(timing: timing))
    }

    /// One event call of one participant, by how it is reached.
    /// `unanswered` is what a participant that does not take part in the event (a NULL slot),
    /// or whose worker failed, counts as.
    @inline(__always)
    private func call<Table>(_ participant: Participant<Table>, _ index: Int, _ roster: Roster<Table>, _ event: LifecycleEvent,
                      _ arguments: CEventArguments, unanswered: Bool, _ failures: inout [PluginFailure]?) -> Bool {
        // A C plugin in this process is the case to be fast: marked likely, its call is laid out on
        // the loop's straight line. Behind a taken branch, as the switch alone placed it, it cost
        // about 2 ns a plugin per event (BENCHMARKS.md, dispatch).
        if _fastPath(participant.isNative), case .native(let table, let ctx, _) = participant {
            return event.callSlot(table, ctx: ctx, arguments, completion: { nil }) ?? unanswered
        }
        switch participant {
        case .native:
            return unanswered // called above
        case .swift(let conformance):
            return event.callSwift(roster.conformances[conformance], completion: { nil }) ?? unanswered
        case .worker(let plugin):
            return callWorker(plugin, event, id: roster.ids[index], unanswered: unanswered, &failures)
        }
    }

    /// The event call of a participant in a worker, out of line: a round trip costs microseconds
    /// anyway, and each typed event method, which inlines the loops, stays small.
    @inline(never)
    private func callWorker(_ plugin: WorkerPlugin, _ event: LifecycleEvent, id: PluginID, unanswered: Bool,
                            _ failures: inout [PluginFailure]?) -> Bool {
        plugin.call(.event(event), id: id, workers).eventAnswer(unanswered: unanswered, failures: &failures)
    }
}
