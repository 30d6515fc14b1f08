/// A library loaded beside a running host's plugins and not yet part of them: its own registry and
/// the host's parts over it (a supervisor that restarts nothing, a saved-state keeper, a dispatcher),
/// to restore its plugins' states and catch them up on the application's events before the host
/// switches to them (``LiveLibraries``).
final class StagedLibrary {
    /// The staged plugins only.
    let registry = PluginRegistry()
    /// Reaches the staged worker; a failure withdraws the staged plugins and restarts nothing.
    let workers: WorkerSupervisor
    /// Restores the staged plugins' states.
    let savedState: SavedStateKeeper
    /// Dispatches the catch-up events to the staged plugins. It delivers no notification: what the
    /// staged plugins post waits on the host's bus for the host's next event, when the host has
    /// switched to them (or dropped them), so no observer gets it twice.
    let dispatcher: EventDispatcher
    /// The load of the library, as at start, amended with the ids a running host refused it.
    private(set) var report: LoadReport
    /// The worker the library was loaded in; nil in process or when no plugin registered.
    let connection: WorkerConnection?

    /// Loads the library at `path` under `trust` with `loader`, where `placement` says (the loader's
    /// isolation when nil), into a registry of its own, its calls made through `callSite`, timed as
    /// `timing` says, waits on workers stopped by `interruption`.
    init(path: String, trust: PluginTrust, placement: PluginIsolation?, loader: LibraryLoader, callSite: PluginCallSite,
         timing: CallTiming, interruption: @escaping @Sendable () -> Bool, log: @escaping PluginHost.LogHandler) {
        registry.policy = loader.accessPolicy
        workers = WorkerSupervisor(loader: loader, registry: registry, restarts: false, record: callSite.record, log: log)
        workers.interruption = interruption
        savedState = SavedStateKeeper(registry: registry, callSite: callSite, workers: workers, log: log)
        let quiet = NotificationDeliverer(bus: NotificationBus(), registry: registry, callSite: callSite, workers: workers)
        dispatcher = EventDispatcher(registry: registry, callSite: callSite, workers: workers, notifications: quiet,
                                     timing: timing, log: log)
        report = loader.loadLibrary(at: path, trust: trust, placement: placement, into: registry)
        connection = registry.entries.lazy.compactMap { entry -> WorkerConnection? in
            guard case .worker(let plugin) = entry.implementation else { return nil }
            return plugin.connection.takeUnretainedValue()
        }.first
    }

    /// The staged plugins' ids, in dispatch order.
    var ids: [PluginID] { registry.ids(from: .library(path: report.path)) }

    /// Whether the library loaded with plugins registered.
    var loaded: Bool { report.status == .loaded && !registry.entries.isEmpty }

    /// Refuses the staged plugins whose ids the host cannot give them, each for the reason `refusal`
    /// gives (nil for an id that is free): one that serves (another library's, or a plugin compiled
    /// into the host), or one two libraries claimed, which belongs to neither. Its worker may then
    /// speak on the bus for its other plugins only (not as the serving plugin): its plugins are
    /// admitted on the bus only now, with the ids left.
    func refuseTaken(_ refusal: (PluginID) -> LoadFailure?) {
        let taken = ids.compactMap { id in refusal(id).map { (id, $0) } }
        for (id, refusal) in taken {
            registry.withdraw(id, refusal: refusal)
            report.plugins.removeAll { $0.descriptor.id == id }
            report.refused.append(PluginRefusal(id: id.rawValue, failure: refusal))
        }
        connection?.admit(ids)
    }

    /// Why the host cannot switch to the staged library: it did not load, its plugins were all refused,
    /// or its worker failed while restoring or catching up, or ended otherwise (a forged frame); nil
    /// when it can.
    var failure: String? {
        if report.status != .loaded {
            if let same = report.sameFileAs { return "it is the same file as \(same), which the host loaded already" }
            return report.failure?.description ?? "it did not load"
        }
        if let failed = workers.failures.first { return failed.message }
        if let ending = connection?.ending { return ending.sentence(who: report.path, callback: "staging", library: nil) }
        if registry.entries.isEmpty {
            return "no plugin is left: " + report.refused.map(\.failure.message).joined(separator: "; ")
        }
        return nil
    }

    /// Catches the staged plugins up with `events` (``ApplicationPhase/catchUp``): returns each event's
    /// report, and a warning for each veto, which cannot undo a launch that happened.
    func catchUp(_ events: [LifecycleEvent]) -> (reports: [EventReport], warnings: [String]) {
        var reports: [EventReport] = []
        var warnings: [String] = []
        for event in events where failure == nil {
            let report = dispatcher.dispatch(event)
            reports.append(report)
            if report.accepted == false {
                warnings.append(report.decidedBy.map(\.rawValue).joined(separator: ", ") + " vetoed \(event.kind.name)"
                                + ", but the application launched already: a late veto does not undo the launch")
            }
        }
        return (reports, warnings)
    }
}
