import PlugboardWorkerProtocol

/// What a host does about its workers on the dispatch thread: how long a request waits for one
/// (the call timeout, the ``interruption``), and what a failed worker costs: reported once,
/// its plugins withdrawn, restarted while its library has restarts left (its plugins get
/// their saved state back), and every failure listed.
final class WorkerSupervisor {
    /// How long one call into a worker may take; nil: no limit.
    let callTimeout: Duration?
    /// Asked while a call or a load waits for a worker's answer: true stops the wait, and the
    /// worker. The loader's, which asks it while a worker loads a library.
    var interruption: @Sendable () -> Bool {
        get { loader.interruption }
        set { loader.interruption = newValue }
    }
    /// Every plugin whose worker failed during a call so far, in the order it happened.
    private(set) var failures: [PluginFailure] = []
    /// The host's dispatch-thread record, which a call into a worker leaves (no plugin code runs here).
    let record: CallRecord
    private let registry: PluginRegistry
    private let bus: NotificationBus
    private let loader: LibraryLoader
    private let log: PluginHost.LogHandler
    /// Gives a restarted worker's plugins their saved state back; it reaches workers through this
    /// supervisor, so it is not held here.
    weak var savedState: SavedStateKeeper?
    /// Says where the application is: once will-terminate was dispatched, a failed worker is not
    /// started again (its plugins would run, and get their state, after the application ended).
    weak var dispatcher: EventDispatcher?

    /// Whether a failed worker is started again (while its library has restarts left).
    private let restarts: Bool

    /// A supervisor of the workers `loader` starts (their plugins in `registry`, the loader's when nil,
    /// their observers on its bus), which leave the dispatch thread's `record` and whose failures go to
    /// `log`; a failed worker is restarted when `restarts` says so.
    init(loader: LibraryLoader, registry: PluginRegistry? = nil, restarts: Bool = true, record: CallRecord,
         log: @escaping PluginHost.LogHandler) {
        callTimeout = loader.callTimeout
        self.record = record
        self.registry = registry ?? loader.registry
        self.restarts = restarts
        bus = loader.bus
        self.loader = loader
        self.log = log
    }

    /// Sends `message` to `connection`'s worker and waits for its reply, at most ``callTimeout`` and
    /// while ``interruption`` says to; `answer` takes the reply it expects. A worker that fails, or
    /// replies what `answer` does not take (to `purpose`), is reported and withdrawn
    /// (``failed(_:_:who:callback:)``), naming `who` and `callback` (made only then: this is every call's path).
    func request<Answer>(_ message: WorkerMessage, to connection: WorkerConnection, purpose: String, who: String,
                         callback: @autoclosure () -> String, _ answer: (WorkerMessage) -> Answer?) -> Result<Answer, PluginFailure> {
        let ending: WorkerEnding
        switch connection.request(message, timeout: callTimeout, interrupted: interruption) {
        case .success(let reply):
            if let answer = answer(reply) { return .success(answer) }
            ending = connection.abandon("it answered \(reply.kind) to \(purpose)")
        case .failure(let failed):
            ending = failed
        }
        return .failure(failed(connection, ending, who: who, callback: callback()))
    }

    /// Reports `ending` (once per worker), naming `who` and `callback` (or the library, "between calls":
    /// ``WorkerConnection/blame(_:who:callback:)``), and withdraws the worker's plugins
    /// (``withdraw(_:failure:)``); returns the failure.
    private func failed(_ connection: WorkerConnection, _ ending: WorkerEnding, who: String, callback: String) -> PluginFailure {
        let (blamed, sentence) = connection.blame(ending, who: who, callback: callback)
        if connection.markReported() {
            log(.host(.error, about: blamed, in: connection.library, sentence))
        }
        let failure = PluginFailure(plugin: PluginID(unchecked: who), message: sentence)
        withdraw(connection, failure: failure)
        return failure
    }

    /// The plugin `id` of the worker that replaced `failed` (restarted when it failed), if one serves it.
    func replacement(of id: PluginID, for failed: WorkerConnection) -> WorkerPlugin? {
        guard case .worker(let plugin)? = registry.entry(id)?.implementation else { return nil }
        let connection = plugin.connection.takeUnretainedValue()
        return connection !== failed && connection.library == failed.library ? plugin : nil
    }

    /// Records `failure` and, the first time for `connection`, withdraws the worker's plugins and
    /// restarts it while the library has restarts left. A worker that failed in a plugin's
    /// `invoke` on another thread was reported there; it is withdrawn here, on the dispatch
    /// thread, at the host's next call into it.
    func withdraw(_ connection: WorkerConnection, failure: PluginFailure) {
        failures.append(failure)
        guard connection.markWithdrawn() else { return }
        bus.removeObservers(of: ObjectIdentifier(connection))
        registry.removeAll(from: .library(path: connection.library))
        if restarts, dispatcher?.phase.terminated != true, let report = loader.restart(connection), report.status == .loaded {
            savedState?.restoreRestarted(Set(report.plugins.map(\.descriptor.id)))
        }
    }
}
