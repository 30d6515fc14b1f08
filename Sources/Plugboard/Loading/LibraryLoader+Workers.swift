#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import PlugboardWorkerProtocol
import Synchronization

/// Loading a library in a worker process: the same checks and the same load
/// report as in process, with the library's code out of the host's process.
extension LibraryLoader {
    /// How long a worker has for its handshake and for `deinit` at shutdown when there is no call timeout.
    var workerGrace: Duration { callTimeout ?? .seconds(10) }

    /// Starts a worker for `path` (whose identity the host checked), has it load
    /// the library under `trust` (its report carries the trust warning), and
    /// registers its plugins as worker participants into `target`; a `restart`'s take no id
    /// another plugin has (``register(_:of:into:in:gate:contesting:add:keep:release:)``).
    func loadInWorker(_ path: String, worker: String, trust: PluginTrust, file: FileStatus, into target: PluginRegistry,
                      restart: Bool = false) -> LoadReport {
        loaded.forgetLost(whileLoading: path)
        let connection: WorkerConnection
        if let prestarted = loaded.takePrestarted(for: path) {
            connection = prestarted
        } else {
            do {
                connection = try startWorker(worker, for: path, trust: trust)
            } catch {
                return .failed(path, error)
            }
        }
        if let failure = connection.handshake(worker: worker, timeout: workerGrace) { return .failed(path, failure) }
        connection.noteLoading(file)
        var report = load(path, in: connection, into: target, contesting: !restart)
        report.sandbox = connection.sandboxSummary
        if let grant = connection.sandbox?.grant, let missing = SandboxSupport.kernel.missingGuard(for: grant) {
            report.warnings.append("sandbox: this kernel lacks \(missing), so a process the library starts may outlive its "
                                   + "worker (--sandbox strict refuses to start it)")
        }
        return report
    }

    /// Starts a worker for `path`, confined as the sandbox mode and the policy say.
    private func startWorker(_ worker: String, for path: String, trust: PluginTrust) throws(LoadFailure) -> WorkerConnection {
        try workerStarter(worker, trust: trust)(path)
    }

    /// What starts a worker of `worker` for a library, loaded under `trust` and confined as the
    /// sandbox mode and the policy say: a value any thread may call.
    private func workerStarter(_ worker: String, trust: PluginTrust) -> @Sendable (String) throws(LoadFailure) -> WorkerConnection {
        let (policy, mode, facade, invoker, bus) = (accessPolicy, sandboxMode, fileFacade, invoker, bus)
        let (log, refusals, output) = (workerLogSink, busRefusalHandler, outputHandler)
        return { path throws(LoadFailure) in
            let grant = policy?.grant(forLibrary: path) ?? SandboxGrant()
            let sandbox = try WorkerSandbox.plan(for: [path], mode: mode, support: .kernel, grant: grant)
            return try WorkerConnection(library: path, trust: trust, sandbox: sandbox, worker: worker, facade: facade,
                                        invoker: invoker, bus: bus, log: log, refusals: refusals, output: output)
        }
    }

    /// Has the worker of `connection`, past its handshake, load the library at `path`, and
    /// registers its plugins as worker participants into `target` (`contesting` as
    /// ``register(_:of:into:in:gate:contesting:add:keep:release:)`` says); the loader keeps the worker while one is registered.
    func load(_ path: String, in connection: WorkerConnection, into target: PluginRegistry, contesting: Bool = true) -> LoadReport {
        // Until the library has registered its plugins, the policy's default rule is its rule.
        if let accessPolicy { connection.gate.apply(accessPolicy, library: path, plugins: nil) }
        // Asked to stop (a signal): the libraries left are not loaded, and not remembered as crashed.
        if interruption() {
            connection.close(timeout: .zero)
            return .failed(path, LoadFailure(.worker, "not loaded: the host was asked to stop"))
        }
        let report: LoadReport
        switch connection.load(path, timeout: callTimeout, interrupted: interruption) {
        case .report(let answer):
            report = answer
        case .broken(let failure):
            return .failed(path, failure)
        case .lost(let ending):
            if case .interrupted = ending {} else { loaded.noteLost(whileLoading: path, ending) }
            return .failed(path, LoadFailure(lostLoading: path, ending, at: connection.stage))
        }
        guard report.status == .loaded else {
            connection.close(timeout: workerGrace)
            return report
        }
        let summaries = report.plugins
        let registered = register(summaries, of: path, into: report, in: target, gate: connection.gate,
                                  contesting: contesting) { (index) throws(LoadFailure) in
            try target.add(WorkerPlugin(connection: .passUnretained(connection), index: UInt32(index)), summaries[index])
        } keep: { plugins in
            // A staged library's ids are admitted once those a serving plugin has are refused (StagedLibrary).
            if target === registry { connection.admit(plugins.map(\.descriptor.id)) }
            loaded.keep(connection)
        } release: {
            connection.close(timeout: workerGrace)
        }
        connection.registered(registered.plugins.map(\.descriptor.id))
        // A forged bus call its plugins made while it loaded, found when they were admitted, ended
        // the worker: the load failed.
        guard registered.status == .loaded, let ending = connection.ending else { return registered }
        target.removeAll(from: .library(path: path))
        return .failed(path, LoadFailure(.worker, ending.sentence(who: path, callback: "loading", library: path)))
    }

    /// With workers, starts one for every candidate file before any is loaded, so their
    /// start-up (exec, the runtime) overlaps the loads; a worker no load takes is closed.
    /// In process, or when a worker cannot be started (the load reports it), nothing.
    ///
    /// The workers are started from ``prestartLanes`` threads at once: a spawn waits until its
    /// child has replaced itself with the worker (`posix_spawn`'s vfork), and on a machine busy
    /// with the workers started before, those waits, one after the other, were most of the
    /// start-up of many libraries (BENCHMARKS.md, start-up).
    func prestartWorkers(for candidates: [LoadCandidate], trust: PluginTrust) {
        guard case .workers(let worker) = isolation else { return }
        let paths = candidates.compactMap(\.filePath)
        let start = workerStarter(worker, trust: trust)
        let started = Mutex<[(path: String, connection: WorkerConnection)]>([])
        let lanes = min(Self.prestartLanes, paths.count)
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for index in stride(from: lane, to: paths.count, by: lanes) {
                guard let connection = try? start(paths[index]) else { continue }
                started.withLock { $0.append((paths[index], connection)) }
            }
        }
        for (path, connection) in started.withLock({ $0 }) { loaded.prestart(connection, for: path) }
    }

    /// How many threads start workers at once: twice the processors (measured on two).
    static var prestartLanes: Int { 2 * ProcessInfo.processInfo.activeProcessorCount }

    /// Starts a new worker for the library of `failed` if it has restarts left, logs what came of it,
    /// and returns the new load's report; nil when there is no restart. The new worker, of the same
    /// executable, loads the file under the same trust rule, and only while it is the file `failed`
    /// loaded, unchanged, both when the host looks and when the new worker does (its `loaded` says
    /// which file it found): a restart brings back the version that served. Another version is a live
    /// change (``PluginHost/reload(libraryAt:)``), with the checks a running host applies to one;
    /// restarted in its place, it could take the ids of another library's plugins, which withdraws them.
    func restart(_ failed: WorkerConnection) -> LoadReport? {
        let (library, worker) = (failed.library, failed.worker)
        let used = loaded.restarts(of: library)
        guard used < restartLimit else {
            if restartLimit > 0 {
                log(PluginLogRecord(source: HostIdentity.name, plugin: nil, level: .error, message:
                    "the worker of \(library) failed with no restart left (\(used) of \(restartLimit) used): its plugins stay withdrawn"))
            }
            return nil
        }
        loaded.countRestart(of: library)
        let report: LoadReport
        do {
            report = loadInWorker(library, worker: worker, trust: failed.trust, file: try unchangedFile(of: failed), into: registry,
                                  restart: true)
        } catch {
            report = .failed(library, error)
        }
        let attempt = "restart \(used + 1) of \(restartLimit)"
        let message = report.status == .loaded
            ? "restarted the worker of \(library) (\(attempt)): " + report.plugins.map(\.descriptor.id.rawValue).joined(separator: ", ")
                + " take part again"
            : "could not restart the worker of \(library) (\(attempt)): " + (report.failure?.description ?? "no plugin registered")
        log(PluginLogRecord(source: HostIdentity.name, plugin: nil, level: report.status == .loaded ? .warning : .error,
                            message: message))
        return report
    }

    /// The status of the file at the library's path of `connection`, when it is the file the worker
    /// was asked to load, unchanged (``FileStatus/stamp``), in folders that pass the trust rule
    /// (``PluginTrust/admitFolder(holding:)``: one made writable by others since could hold another
    /// file by the time the worker opens it); else why not.
    private func unchangedFile(of connection: WorkerConnection) throws(LoadFailure) -> FileStatus {
        _ = try connection.trust.admitFolder(holding: connection.library)
        let now = try FileStatus.ofLibrary(connection.library)
        guard let loaded = connection.file, now.stamp == loaded.stamp else {
            // Only the change time differs: a rewrite in place with its times put back, or a link or a
            // chmod, which a live pass does not count as a change: said, as nothing else would.
            let how = connection.file.map(now.isSameFile) == true ? " (its change time: rewritten in place, linked or its "
                + "mode set again)" : ""
            throw LoadFailure(.scan, "the file changed since its worker loaded it\(how), and a restart brings back only the "
                              + "version that served")
        }
        return now
    }
}

extension LoadFailure {
    /// Why the library at `path` failed when its worker ended (`ending`) while loading it, in the
    /// library function `stage` announced last: the stage it was in (nil or `deinit`, a previous
    /// library's, means `dlopen`) and the worker's sentence.
    init(lostLoading path: String, _ ending: WorkerEnding, at stage: LibraryFunction?) {
        let failedAt: LoadStage = switch stage {
        case .entry: .entry
        case .`init`: .`init`
        case .registerPlugins: .register
        case .`deinit`, nil: .open
        }
        let callback = failedAt == .open ? "dlopen" : stage?.rawValue ?? "dlopen"
        self.init(failedAt, ending.sentence(who: path, callback: callback, library: path))
    }
}

extension WorkerConnection {
    /// Says `hello` to the worker (the program at `worker`) and checks its answer, waiting at most
    /// `timeout`: nil when it can serve this host, else why not (the worker is ended then).
    func handshake(worker: String, timeout: Duration) -> LoadFailure? {
        let hello = WorkerMessage.hello(protocolVersion: .current, hostABIMajor: ABIVersion.host.major,
                                        hostABIMinor: ABIVersion.host.minor)
        switch request(hello, timeout: timeout) {
        case .success(.helloReply(let version, _)):
            do throws(WorkerProtocolError) {
                try WorkerProtocolVersion.current.requireCompatible(peer: version)
            } catch {
                abandon(error.description)
                return LoadFailure(.worker, "the plugin worker \(worker) cannot serve this host: \(error)")
            }
            return nil
        case .success(let other):
            abandon("it answered the handshake with \(other.kind)")
            return LoadFailure(.worker, "the plugin worker answered the handshake with \(other.kind)")
        case .failure(.exited(status: WorkerSandbox.failureStatus)) where sandbox != nil:
            close(timeout: .zero)
            return LoadFailure(.worker, "the plugin worker could not confine itself and ended (its message says why); nothing of the library ran")
        case .failure(let ending):
            close(timeout: .zero)
            // No library named: a scanner's worker answers for a share of libraries, and each one's report names it.
            return LoadFailure(.worker, ending.sentence(who: "the plugin worker", callback: "its handshake", library: nil))
        }
    }

    /// What came of a ``load(_:timeout:)``.
    enum LoadAnswer {
        /// The worker's report.
        case report(LoadReport)
        /// The worker broke the protocol (the failure says how), and was ended.
        case broken(LoadFailure)
        /// The worker ended while loading (crashed, exited, or was ended past the timeout); its channel is closed.
        case lost(WorkerEnding)
    }

    /// Has the worker load the library at `path`, under the connection's trust rule, waiting at most
    /// `timeout` and while `interrupted` says false.
    func load(_ path: String, timeout: Duration?, interrupted: () -> Bool = { false }) -> LoadAnswer {
        logs.loading()
        // A library loaded: its log lines stay held until the host registered its plugins
        // (``registered(_:)``), which are not always the ones its report claims.
        var loaded = false
        defer { if !loaded { logs.loaded([]) } }
        switch request(.load(path: path, allowInsecure: trust == .allowInsecure), timeout: timeout, interrupted: interrupted) {
        case .success(.loaded(let json, let stamp)):
            guard let report = try? JSONDecoder().decode(LoadReport.self, from: Data(json)) else {
                abandon("it sent a load report that does not decode")
                return .broken(LoadFailure(.worker, "the plugin worker sent a load report that does not decode"))
            }
            // The worker's process is not trusted: a report naming another path, or plugins of another
            // source, would have the host act on another library's plugins.
            guard report.path == path, report.plugins.allSatisfy({ $0.source == .library(path: path) }) else {
                abandon("it sent a load report about another library")
                return .broken(LoadFailure(.worker, "the plugin worker sent a load report about another library"))
            }
            if report.status == .loaded, let checked = file {
                // The worker looked the path up again after the host did: a file put there meanwhile
                // (another version dropped in) did not pass the host's checks (a restart's, a live change's).
                if stamp == nil, let peerVersion, peerVersion.minor >= WorkerProtocolVersion.loadedFileStampMinor {
                    abandon("it sent a load report without the file it loaded")
                    return .broken(LoadFailure(.worker, "the plugin worker sent a load report without the file it loaded"))
                }
                if let stamp, stamp != checked.stamp {
                    return .report(.failed(path, LoadFailure(.scan, "the file changed while its worker started: the worker "
                                                             + "found another file at the path than the one the host checked")))
                }
            }
            loaded = report.status == .loaded
            return .report(report)
        case .success(let other):
            abandon("it answered the load with \(other.kind)")
            return .broken(LoadFailure(.worker, "the plugin worker answered the load with \(other.kind)"))
        case .failure(let ending):
            close(timeout: .zero)
            return .lost(ending)
        }
    }

    /// Ends the hold of a load that loaded (``load(_:timeout:interrupted:)``): the host registered
    /// `plugins` of the library (none when it refused them all). Its log lines, and the sandbox's
    /// reports, are about these plugins only.
    func registered(_ plugins: [PluginID]) {
        logs.loaded(plugins)
    }

    /// How the worker is confined, as a load report says it.
    var sandboxSummary: SandboxSummary {
        sandbox?.summary ?? SandboxSummary(mode: SandboxMode.off.rawValue, layers: [], grants: [])
    }
}
