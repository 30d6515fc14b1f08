import PlugboardFiles

/// The host: composes built-in Swift plugins and loaded C plugins behind one
/// dispatcher, fans every lifecycle event out by its ``DispatchPolicy`` and
/// reports who answered what.
///
/// Use one host from one thread at a time (an actor that owns the host is the checked way under
/// Swift 6): the thread of each call is the plugins' dispatch thread for it. Nothing detects
/// calls from two threads at once. Install ``FaultReporter`` to have a crash in plugin code named.
/// Libraries are shared by the hosts of a process; hosts that share a library
/// must dispatch from the same thread.
///
/// A façade over parts that each own their state: ``LibraryLoader`` (the libraries and workers
/// held), ``EventDispatcher`` (the events' loops and their timing), ``NotificationDeliverer``
/// (the bus), ``SavedStateKeeper`` (the store), ``WorkerSupervisor`` (failed workers), and the
/// ``FunctionInvoker`` (the plugins' functions), and ``LiveLibraries`` (libraries that join, reload
/// and leave while it runs), all over one ``PluginRegistry`` and one ``PluginCallSite``.
public final class PluginHost {
    /// Receives every message plugins log, and the host's own warnings about plugin misuse.
    public typealias LogHandler = @Sendable (PluginLogRecord) -> Void
    /// Receives every line plugin code prints in a worker, from any thread.
    public typealias OutputHandler = @Sendable (PluginOutputLine) -> Void

    /// The registered plugins, in dispatch order once prepared.
    let registry = PluginRegistry()
    /// How every plugin call is made: recorded for fault and timeout messages, timed and decorated.
    let callSite: PluginCallSite
    /// Loads libraries, and holds them and their workers.
    let loader: LibraryLoader
    /// Dispatches the lifecycle events.
    let dispatcher: EventDispatcher
    /// The notifications plugins and the embedding API post, their observers, and their delivery.
    let notifications: NotificationDeliverer
    /// Restores and saves the plugins' states.
    let savedState: SavedStateKeeper
    /// Reaches workers, and answers for the ones that fail.
    let workers: WorkerSupervisor
    /// The plugins' functions as any thread reaches them (calls, and plugins' `invoke`).
    let functionInvoker: FunctionInvoker
    /// Applies joins, reloads and departures of libraries while the host runs.
    let live: LiveLibraries
    /// Reports calls that do not return within the call timeout; nil without one.
    private let watchdog: CallWatchdog?

    /// The container offered to loaded C plugins as the `files` host service;
    /// nil offers none. See also ``FilesPlugin``.
    public var fileFacade: FileFacade? { loader.fileFacade }
    /// Where loaded libraries run.
    public var isolation: PluginIsolation { loader.isolation }
    /// How workers are confined (in process, nothing is).
    public var sandboxMode: SandboxMode { loader.sandboxMode }
    /// The authorization decorator's policy, if the host has one (``PluginDecorator``).
    public var accessPolicy: AccessPolicy? { callSite.decorators.authorization?.policy }

    /// Whether each plugin call is timed (two clock reads become one per call, and
    /// a clock read costs more than a C callback), or only each event.
    ///
    /// Read once per event; not checked for exclusive access at run time (that
    /// check cost more than a C callback), which is safe because a host is used
    /// from one thread.
    public var timing: CallTiming {
        get { dispatcher.timing }
        set { dispatcher.timing = newValue }
    }

    /// Asked while the host waits for a worker's answer: true stops the wait, the
    /// worker with it (the call is reported as interrupted); asked too after each notification
    /// delivered, where true drops the rest of the queue (``DeliveryStop/interrupted``). For an
    /// application that must stop promptly on a signal, even while a plugin spins. Default: never.
    public var interruption: @Sendable () -> Bool {
        get { workers.interruption }
        set { workers.interruption = newValue }
    }

    /// Where the host remembers libraries whose worker crashed, exited or hung while
    /// loading them (the scan cache of `list`): such a library is skipped, with its
    /// stored reason, until its file changes, unless ``retryCrashed``. A library loaded in
    /// this process is remembered as having passed the ELF checks, and while its file is
    /// unchanged it is not checked again (see ``reusesScanCache``). nil remembers nothing.
    public var scanCache: ScanCache? {
        get { loader.scanCache }
        set { loader.scanCache = newValue }
    }

    /// Load libraries the scan cache remembers as crashed all the same.
    public var retryCrashed: Bool {
        get { loader.retryCrashed }
        set { loader.retryCrashed = newValue }
    }

    /// Whether what the scan cache remembers is used (true by default): false checks every
    /// library again and loads those it remembers as crashed, and the cache is only written.
    public var reusesScanCache: Bool {
        get { loader.reusesScanCache }
        set { loader.reusesScanCache = newValue }
    }

    /// Every plugin whose worker failed during a call so far, in the order it happened.
    public var failures: [PluginFailure] { workers.failures }

    /// An empty host.
    /// - Parameters:
    ///   - timing: what the host times (see ``timing``).
    ///   - fileFacade: the container offered to C plugins as the `files` host service; nil offers none.
    ///   - callTimeout: after this long in one plugin call, in process `logHandler` receives a warning
    ///     naming the plugin and the callback (the call is not stopped); in a worker, the worker is
    ///     stopped and its plugins take no further part. nil: no limit.
    ///   - isolation: where loaded libraries run (in this process by default).
    ///   - sandbox: how workers are confined (``SandboxMode``); the kernel's sandbox with the policy's
    ///     grants by default. With ``SandboxMode/best`` on a kernel that lacks a layer, `logHandler` gets one warning.
    ///   - restarts: with workers, how often a library's worker that failed is started again
    ///     (its plugins take part from the next event on); 0 by default.
    ///   - decorators: wrappers around every plugin's calls, stacked in their fixed order (``PluginDecorator``).
    ///   - logHandler: receives plugin log messages and the host's warnings, from any thread (with
    ///     ``PluginDecorator/threadConfinement``, plugin messages on the dispatch thread).
    ///   - outputHandler: receives the lines plugin code prints in workers, from any thread.
    public init(timing: CallTiming = .perCall, fileFacade: FileFacade? = nil, callTimeout: Duration? = nil,
                isolation: PluginIsolation = .inProcess, sandbox: SandboxMode = .best, restarts: Int = 0,
                decorators: [PluginDecorator] = [],
                logHandler: @escaping LogHandler = { _ in }, outputHandler: @escaping OutputHandler = { _ in }) {
        if case .workers = isolation, sandbox == .best { SandboxSupport.warnOnceOfMissingLayers(logHandler) }
        let decorators = CallDecorators(decorators, log: logHandler)
        registry.policy = decorators.authorization?.policy
        decorators.confinement?.adopt()
        let record = CallRecord()
        callSite = PluginCallSite(record: record, decorators: decorators)
        watchdog = callTimeout.map { CallWatchdog(record: record, timeout: $0, report: logHandler) }
        functionInvoker = FunctionInvoker(callSite: callSite, callTimeout: callTimeout, log: logHandler)
        functionInvoker.follow(registry)
        let bus = NotificationBus()
        loader = LibraryLoader(registry: registry, invoker: functionInvoker, bus: bus, callSite: callSite, log: logHandler,
                               isolation: isolation, sandbox: sandbox, callTimeout: callTimeout, restarts: restarts,
                               fileFacade: fileFacade, output: outputHandler)
        workers = WorkerSupervisor(loader: loader, record: record, log: logHandler)
        savedState = SavedStateKeeper(registry: registry, callSite: callSite, workers: workers, log: logHandler)
        workers.savedState = savedState
        notifications = NotificationDeliverer(bus: bus, registry: registry, callSite: callSite, workers: workers)
        dispatcher = EventDispatcher(registry: registry, callSite: callSite, workers: workers, notifications: notifications,
                                     timing: timing, log: logHandler)
        workers.dispatcher = dispatcher
        live = LiveLibraries(loader: loader, callSite: callSite, workers: workers, savedState: savedState,
                             dispatcher: dispatcher, log: logHandler)
    }

    deinit { shutdown() }

    /// The registered plugins, in dispatch order.
    public var plugins: [PluginSummary] { registry.summaries }

    /// Registers a plugin compiled into the process; a duplicate id is refused.
    public func register(_ plugin: any ApplicationPlugin) throws(LoadFailure) {
        try registry.add(plugin, source: .builtIn)
    }

    /// Lets go of every loaded library and registered plugin (built-in ones too); the last host
    /// using a library runs its `deinit`. Send ``willTerminate()`` first: dropping the host shuts it
    /// down without it. Afterwards the host is empty: events reach no plugin, posts reach no
    /// observer, and libraries loaded later are loaded afresh.
    ///
    /// Returns one sentence per worker that failed while its library's `deinit` ran (a crash,
    /// an exit, a hang: `/path/libx.so crashed with SIGSEGV in deinit`), each also logged;
    /// empty when every library ended well, and when called again.
    ///
    /// Called while the host calls plugins (from a Swift plugin's callback or an observer), it
    /// returns empty at once and the host shuts down when that event, delivery or saved-state
    /// operation returns: the plugins still to be called in it are called first, none after.
    @discardableResult
    public func shutdown() -> [String] {
        guard registry.isCalling else { return loader.shutdown() }
        registry.afterCalls { [loader] in _ = loader.shutdown() }
        return []
    }

    /// With ``PluginDecorator/threadConfinement``, delivers on this thread (which must be the
    /// dispatch thread) what plugin threads sent since the last event: the host does so after
    /// each event; an application that waits for plugins between events calls it from its
    /// dispatch thread's loop. Without it, nothing.
    public func deliverConfined() {
        callSite.decorators.confinement?.drain()
    }
}
