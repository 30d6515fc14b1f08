#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import PlugboardFiles
import PlugboardSystem
import PlugboardWorkerProtocol
import Synchronization

/// One plugin library loaded in a fresh worker of its own, for a tool that exercises it the way a
/// host will use it (`plugboard validate`): the host that loaded it, for the embedding API's events,
/// and what that API does not offer: running the library's `deinit` and its `init` again in the
/// same worker, how the worker ended, the bus calls the host refused the library (typed), the names
/// its plugins observe, the symbols its file exports. The library's files service works on a scratch container of its own: a new
/// temporary directory, removed with the harness.
///
/// Use it from one thread, as a host.
package final class WorkerHarness {
    /// The host that loaded the library, in a worker: its public API sends events, saves and
    /// restores state, posts and delivers notifications.
    package let host: PluginHost
    /// The library file.
    package let library: String
    /// The load's report.
    package let report: LoadReport
    /// How long the load took, from starting the worker to registering the plugins.
    package let loadDuration: Duration
    /// The container the plugins' files service works on; nil when none could be made.
    private let scratch: ScratchContainer?
    private let refused: RefusalRecord

    /// Starts a worker from the `plugboard-worker` executable `worker` and has it load `library`,
    /// with the files service on a new scratch container (none when no temporary directory can be
    /// made). A call that runs longer than `callTimeout` stops the worker. The host's log messages
    /// go to `logHandler`, what plugin code prints to `outputHandler`, both from any thread. The
    /// worker has the default sandbox, plus `grant`; the library loads under `trust`.
    package init(library: String, worker: String, callTimeout: Duration, grant: SandboxGrant = SandboxGrant(),
                 trust: PluginTrust = .strict,
                 logHandler: @escaping PluginHost.LogHandler = { _ in },
                 outputHandler: @escaping PluginHost.OutputHandler = { _ in }) {
        let scratch = ScratchContainer()
        let refused = RefusalRecord()
        let granting = grant.isEmpty ? [] : [PluginDecorator.authorization(AccessPolicy(source: "the harness's grant", libraries: [library: grant]))]
        host = PluginHost(fileFacade: scratch?.facade, callTimeout: callTimeout, isolation: .workers(worker: worker),
                          decorators: granting, logHandler: logHandler, outputHandler: outputHandler)
        host.loader.busRefusalHandler = { refusal in refused.refusals.withLock { $0.append(refusal) } }
        let clock = ContinuousClock()
        let start = clock.now
        report = host.loadLibrary(at: library, trust: trust)
        loadDuration = clock.now - start
        self.library = library
        self.scratch = scratch
        self.refused = refused
    }

    deinit {
        // Every deinit ran before the scratch container goes.
        host.shutdown()
    }

    /// The saved-state store of the scratch container; nil when none could be made.
    package var stateStore: SavedStateStore? { scratch.map { SavedStateStore(facade: $0.facade) } }

    /// How the library's worker ended while it loaded the library or served a call, if it did.
    package var workerEnding: WorkerEnding? { host.workerEnding(of: library) }

    /// The notification-bus calls the host refused the library so far (those it logged: the first
    /// ``RefusalLogBudget/limit``), in order, whatever note their log line carries.
    package var busRefusals: [BusRefusal] { refused.refusals.withLock { $0 } }

    /// The notification names the plugins of the load's report observe now, sorted, each once.
    package var observedNames: [String] {
        host.notifications.bus.names(observedBy: Set(report.plugins.map(\.descriptor.id.rawValue)))
    }

    /// A worker that failed while the library's `deinit` ran.
    package struct DeinitFailure: Error, Sendable, Equatable {
        /// How the worker ended.
        package let ending: WorkerEnding
        /// The host's sentence for it: `/path/libx.so crashed with SIGSEGV in deinit`.
        package let sentence: String
    }

    /// Withdraws the library's plugins and has its worker run the library's `deinit` and stay;
    /// after `deinit` returned, the worker waits `linger` (a thread the library did not stop shows
    /// up calling the host), then reports how the library used the host services. ``loadAgain()``
    /// loads it again in the same worker. Fails with how the worker ended (it is then stopped).
    package func unload(linger: Duration) -> Result<ServiceCensus, DeinitFailure> {
        let failed = { (ending: WorkerEnding) in
            DeinitFailure(ending: ending, sentence: ending.sentence(who: self.library, callback: "deinit", library: self.library))
        }
        guard let connection = host.loader.loaded.workers(loadedFrom: library).last, connection.ending == nil else {
            return .failure(failed(.lost("no worker of this host holds the library")))
        }
        if let refusal = connection.refusal(needing: WorkerMessage.Kind.unload.introducedInMinor, for: "unload") {
            return .failure(failed(connection.abandon(refusal)))
        }
        host.registry.removeAll(from: .library(path: library))
        let milliseconds = UInt32(clamping: linger.nanoseconds / 1_000_000)
        let answer = connection.request(.unload(lingerMilliseconds: milliseconds), timeout: host.workers.callTimeout.map { $0 + linger })
        // Its observers end with it (those its deinit made too: their frames came before the answer).
        host.notifications.bus.removeObservers(of: ObjectIdentifier(connection))
        switch answer {
        case .success(.unloaded(let census)): return .success(census)
        case .success(let other): return .failure(failed(connection.abandon("it answered the unload with \(other.kind)")))
        case .failure(let ending): return .failure(failed(ending))
        }
    }

    /// Loads the library again in the worker that unloaded it (``unload(linger:)``), so its `init`
    /// and `register_plugins` run a second time in the same process, and registers its plugins.
    package func loadAgain() -> LoadReport {
        guard let connection = host.loader.loaded.workers(loadedFrom: library).last, connection.ending == nil else {
            return .failed(library, LoadFailure(.worker, "no worker of this host holds the library"))
        }
        return host.loader.load(library, in: connection, into: host.registry)
    }

    /// The names the library file at `path` exports, read from its dynamic symbol table without
    /// loading it, or why they cannot be read.
    package static func exportedSymbols(of path: String) throws(LoadFailure) -> [String] {
        try ELFFileReader.reading(path) { (file) throws(LoadFailure) in
            guard let symbols = try file.dynamicSymbols() else { throw LoadFailure(.open, "the file has no dynamic section") }
            return try symbols.exportedNames()
        }
    }
}

/// The bus refusals a harness's host reported, from any thread.
private final class RefusalRecord: Sendable {
    let refusals = Mutex<[BusRefusal]>([])
}

/// A container in a new temporary directory, so plugins get the files service as under
/// `plugboard run`; the directory is removed with this object.
private final class ScratchContainer: Sendable {
    /// The facade over the container, with its four directories made.
    let facade: FileFacade
    private let root: String

    /// A new scratch container; nil when no temporary directory can be made.
    init?() {
        var template = Array((FileManager.default.temporaryDirectory.path + "/plugboard-validate-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        let root = String(cString: made)
        guard let container = try? Container(rootPath: root), (try? container.createDirectories()) != nil else {
            try? FileManager.default.removeItem(atPath: root)
            return nil
        }
        self.root = root
        facade = FileFacade(container: container)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }
}
