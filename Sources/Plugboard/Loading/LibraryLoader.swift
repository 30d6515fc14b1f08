import CFaultReporter
import Glibc
import PlugboardFiles
import PlugboardWorkerProtocol

/// Loads plugin libraries into one registry, following the loading rules: stable order, each
/// file once, trusted files only, one bad file never stops the others, and an id two libraries
/// claim belongs to neither. In this process or in workers, every load ends the same way
/// (``register(_:of:into:gate:add:keep:release:)``).
///
/// Owns what loading leaves: the libraries and workers it holds and the files it tried
/// (``loaded``), and the scan cache's remembered crashes. A host and a worker process load with
/// the same type; a worker process's loader loads in that process only, reaches the files service
/// through its host and announces each stage of a library's own functions.
final class LibraryLoader {
    /// Where the loaded plugins are registered.
    let registry: PluginRegistry
    /// The plugins' functions as any thread reaches them; libraries' `invoke` goes to it.
    let invoker: FunctionInvoker
    /// The notification bus libraries post to and observe.
    let bus: NotificationBus
    /// How plugin code is called: the record of a library's own functions, and the decorators.
    let callSite: PluginCallSite
    /// Receives the host's warnings and errors about loading, and the plugins' log lines (``pluginLogSink``).
    let log: PluginHost.LogHandler

    /// Where loaded libraries run when a load does not say.
    let isolation: PluginIsolation
    /// How workers are confined.
    let sandboxMode: SandboxMode
    /// How long a worker may take to load a library; also its handshake's and `deinit`'s limit (``workerGrace``).
    let callTimeout: Duration?
    /// Asked while a worker loads a library: true stops the wait, and the worker (the load fails as
    /// interrupted); see ``PluginHost/interruption``.
    var interruption: @Sendable () -> Bool = { false }
    /// How often a library's failed worker is started again.
    let restartLimit: Int
    /// The container of the `files` host service; nil offers none (unless ``filesProxy``).
    let fileFacade: FileFacade?
    /// In a worker process: the host's files service, reached through the channel.
    private let filesProxy: HostFilesProxy?
    /// Receives what plugin code prints in workers.
    let outputHandler: PluginHost.OutputHandler
    /// Told each stage of a library's own functions before it runs (a worker tells its host).
    private let announce: (@Sendable (LibraryFunction) -> Void)?

    /// Told, from any thread, of each notification-bus call of a loaded library that was refused
    /// and logged (the first ``RefusalLogBudget/limit`` of each library), in process or in its
    /// worker; set before loading.
    var busRefusalHandler: LogRouter.RefusalSink?
    /// Where crashes while loading, and files that passed the checks, are remembered (see ``PluginHost/scanCache``).
    var scanCache: ScanCache?
    /// Load libraries the scan cache remembers as crashed all the same.
    var retryCrashed = false
    /// See ``PluginHost/reusesScanCache``.
    var reusesScanCache = true
    /// The libraries and workers held and the files tried.
    var loaded = HostLibraries()

    /// A loader that registers into `registry`, gives libraries `invoker` and `bus`, calls their
    /// code through `callSite` and logs to `log`. The rest as ``PluginHost/init(timing:fileFacade:callTimeout:isolation:sandbox:restarts:decorators:logHandler:outputHandler:)``
    /// says; a worker process's loader gives `filesProxy` and `announce` instead.
    init(registry: PluginRegistry, invoker: FunctionInvoker, bus: NotificationBus, callSite: PluginCallSite,
         log: @escaping PluginHost.LogHandler, isolation: PluginIsolation = .inProcess, sandbox: SandboxMode = .best,
         callTimeout: Duration? = nil, restarts: Int = 0, fileFacade: FileFacade? = nil, filesProxy: HostFilesProxy? = nil,
         output: @escaping PluginHost.OutputHandler = { _ in }, announce: (@Sendable (LibraryFunction) -> Void)? = nil) {
        self.registry = registry
        self.invoker = invoker
        self.bus = bus
        self.callSite = callSite
        self.log = log
        self.isolation = isolation
        sandboxMode = sandbox
        self.callTimeout = callTimeout
        restartLimit = max(0, restarts)
        self.fileFacade = fileFacade
        self.filesProxy = filesProxy
        outputHandler = output
        self.announce = announce
    }

    deinit { shutdown() }

    /// The identity the library table, a library's log router and its invocations know this loader by.
    private var owner: ObjectIdentifier { ObjectIdentifier(self) }

    /// How a library's own functions are called: recorded, and announced.
    var libraryCalls: LibraryCallSite { LibraryCallSite(record: callSite.record, announce: announce) }

    /// Where plugin log lines go: ``log``, through the dispatch thread when confined.
    var pluginLogSink: PluginHost.LogHandler {
        guard let confinement = callSite.decorators.confinement else { return log }
        let log = log
        return { record in confinement.log(record, to: log, ordered: false) }
    }

    /// Where the log lines a worker sends go: ``log``, when confined queued for the dispatch
    /// thread's next drain whichever host thread read them, so they keep their order.
    var workerLogSink: PluginHost.LogHandler {
        guard let confinement = callSite.decorators.confinement else { return log }
        let log = log
        return { record in confinement.log(record, to: log, ordered: true) }
    }

    /// The files service a library loaded now gets: the host's through the worker's channel,
    /// or the facade here; none without a container.
    private var filesAccess: FilesAccess? {
        filesProxy.map { FilesAccess(.worker($0)) } ?? fileFacade.map { FilesAccess(.here(FilesService(facade: $0))) }
    }

    /// The authorization decorator's policy, if any.
    var accessPolicy: AccessPolicy? { callSite.decorators.authorization?.policy }

    /// Loads every candidate file of `searchPath`; see ``PluginHost/loadPlugins(from:trust:)``.
    ///
    /// In four passes over the files, in order: each is admitted (and one to load in this process
    /// that its folder lists as a regular file is checked then, the ELF checks, through the descriptor
    /// its status came from); each other to load in this process is checked; each checked is opened
    /// (`dlopen`, then its `plugboard_entry`); then each is loaded (its other stages, its plugins
    /// registered; or its worker). The dynamic loader keeps a record per
    /// library and walks all of them at every `dlopen`: opened back to back, with nothing of the host
    /// allocated between them, those records lie together in memory instead of among what the host
    /// keeps of each library, and the walks stay fast (BENCHMARKS.md, Loading).
    func loadPlugins(from searchPath: PluginSearchPath, trust: PluginTrust) -> [LoadReport] {
        let candidates = LoadCandidate.all(in: searchPath, trust: trust)
        loaded.reserveTries(candidates.count)
        LibraryTable.shared.reserveOpenings(candidates.count)
        registry.reserveCapacity(candidates.count)
        invoker.reserveCapacity(candidates.count)
        prestartWorkers(for: candidates, trust: trust)
        defer { for unused in loaded.takeUnusedPrestarted() { unused.discard() } }
        var loads = candidates.map { candidate in
            switch candidate {
            case .refused(let report): PendingLoad(refused: report)
            case .file(let path, let warnings, let isRegularFile):
                PendingLoad(directoryWarnings: warnings) { admit(path, trust: trust, placement: nil, isRegularFile: isRegularFile) }
            }
        }
        callSite.decorators.confinement?.adopt()
        for index in loads.indices { loads[index].advance { $0.check() } }
        let calls = libraryCalls
        for index in loads.indices { loads[index].advance { $0.open(calls: calls) } }
        callSite.decorators.confinement?.drain()
        var reports = loads.map { $0.finish { load($0, trust: trust, into: registry) } }
        for index in reports.indices { reports[index].withdraw(registry.refusal(forContested:)) }
        return reports
    }

    /// One file on its way through ``loadPlugins(from:trust:)``: where it stands, and the time spent on it.
    private struct PendingLoad {
        private var admission: Admission
        /// When its load began and the time spent on it so far; nil for a refused candidate.
        private var time: LoadTime?
        /// What the search path found wrong with the file's folder.
        private let directoryWarnings: [String]

        /// A candidate the search path refused, with its report.
        init(refused report: LoadReport) {
            admission = .settled(report)
            directoryWarnings = []
        }

        /// A file `admit` admits now, in a folder with `directoryWarnings`.
        init(directoryWarnings: [String], _ admit: () -> Admission) {
            let start = MonotonicClock.now()
            admission = admit()
            time = LoadTime(start: start, nanoseconds: MonotonicClock.now() &- start)
            self.directoryWarnings = directoryWarnings
        }

        /// Takes the file's next step, `step`, in place, timed.
        mutating func advance(_ step: (inout Admission) -> Void) {
            let start = MonotonicClock.now()
            step(&admission)
            time = time(adding: start)
        }

        /// The report of its last step, `load`: with the time spent on the file in every step.
        func finish(_ load: (Admission) -> LoadReport) -> LoadReport {
            let start = MonotonicClock.now()
            var report = load(admission)
            report.loadTime = time(adding: start)
            report.warnings = directoryWarnings + report.warnings
            return report
        }

        /// The time spent on the file, with a step that began at `start` and ends now.
        private func time(adding start: UInt64) -> LoadTime? {
            time.map { LoadTime(start: $0.start, nanoseconds: $0.nanoseconds + (MonotonicClock.now() &- start)) }
        }
    }

    /// Loads the library at `path`, in a worker or here as `placement` (or ``isolation``) says, and
    /// registers its plugins into `target` (the host's registry when nil; a live change stages a
    /// library in a registry of its own first); see ``PluginHost/loadLibrary(at:trust:placement:)``.
    func loadLibrary(at path: String, trust: PluginTrust, placement: PluginIsolation?,
                     into target: PluginRegistry? = nil) -> LoadReport {
        load(admit(path, trust: trust, placement: placement), trust: trust, into: target ?? registry)
    }

    /// ``loadLibrary(at:trust:placement:into:)`` for a library named on its own, not found in a
    /// scanned folder: its folders pass the trust rule first (``PluginTrust/admitFolder(holding:)``),
    /// as a scanned folder does. Once, here: a worker loading it does not check again.
    func loadNamedLibrary(at path: String, trust: PluginTrust, placement: PluginIsolation?) -> LoadReport {
        let folderWarnings: [String]
        do {
            folderWarnings = try trust.admitFolder(holding: path)
        } catch {
            return .failed(path, error)
        }
        var report = loadLibrary(at: path, trust: trust, placement: placement)
        report.warnings = folderWarnings + report.warnings
        return report
    }

    /// Where a file stands once admitted: settled, or to load in a worker or here.
    private enum Admission {
        /// Nothing to load: the report says why (its status, a skip, the trust rule, a remembered crash).
        case settled(LoadReport)
        /// To load in a worker of the `worker` executable, the file `status` describes; `key` is its scan
        /// cache entry, if any.
        case worker(String, worker: String, status: FileStatus, key: ScanCacheKey?)
        /// To load in this process, with the trust rule's `warnings`; `opening` is how far it got
        /// ahead of its `init`, nil when it is still to check; `remember`: whether the scan cache
        /// is to remember that it passed the checks once it loads.
        case here(String, FileStatus, warnings: [String], opening: Opening?, remember: Bool)

        /// Checks a library to load here that is still to check (the ELF checks; none of its code
        /// runs). In place, and the first pattern binds nothing: the other admissions, most of them
        /// checked as they were admitted, are left as they are, their contents not copied out.
        mutating func check() {
            guard case .here(_, _, _, nil, _) = self, case .here(let path, let status, let warnings, nil, let remember) = self else { return }
            let label = Result { () throws(LoadFailure) in try LoadedLibrary.check(path, fileSize: status.size) }
            self = .here(path, status, warnings: warnings, opening: .checked(label), remember: remember)
        }

        /// Opens a checked library to load here (its `dlopen` and `plugboard_entry`, recorded in
        /// `calls`), its other functions left for ``LibraryLoader/load(_:trust:into:)``.
        mutating func open(calls: LibraryCallSite) {
            guard case .here(let path, let status, let warnings, let opening?, let remember) = self else { return }
            self = .here(path, status, warnings: warnings, opening: .opened(opening.opened(path, status.identity, calls: calls)),
                         remember: remember)
        }
    }

    /// How far a library to load in this process got ahead of its `init`.
    private enum Opening {
        /// Checked: its code will run under the label (or why it failed the checks).
        case checked(Result<UnsafePointer<pbf_label_t>, LoadFailure>)
        /// Opened (or why it could not be).
        case opened(Result<LoadedLibrary.Opened, LoadFailure>)

        /// The library at `path`, the file `identity`, opened, now if it is only checked (its `dlopen`
        /// and `plugboard_entry` recorded in `calls`).
        func opened(_ path: String, _ identity: FileIdentity, calls: LibraryCallSite) -> Result<LoadedLibrary.Opened, LoadFailure> {
            switch self {
            case .checked(.success(let label)):
                Result { () throws(LoadFailure) in try LoadedLibrary.open(path, identity, label: label, calls: calls) }
            case .checked(.failure(let failure)): .failure(failure)
            case .opened(let opened): opened
            }
        }
    }

    /// Admits the file at `path`: its status, each file once, the trust rule, the scan cache's
    /// remembered crashes; then where it loads.
    ///
    /// A file to load in this process that its directory lists as a regular file (`isRegularFile`)
    /// is opened first and checked through that descriptor as soon as it is admitted: its status is
    /// then an `fstat`, and the path is looked up once instead of twice (BENCHMARKS.md, Loading). The
    /// open follows no link: an entry replaced by one since the folder was listed fails it. One that
    /// cannot be opened so is looked at with `stat`, and its checks then say why it cannot be read.
    /// So is a file the scan cache has a record of having passed the checks: while the record vouches
    /// for its bytes (``ScanCacheRecord/vouchesForContents(of:)``) the file is not checked again, nor
    /// opened before its `dlopen`. One loaded here is remembered so (a listing's report of it is kept,
    /// and says more: ``ScanCache/notePassedChecks(_:)``).
    private func admit(_ path: String, trust: PluginTrust, placement: PluginIsolation?, isRegularFile: Bool = false) -> Admission {
        let cache = scanCache  // one copy: each use of the property would make one
        let cached = cache?.record(at: path)
        let checkedBefore = reusesScanCache && (cached?.kind == .checked || cached?.kind == .scanned)
        var descriptor: Int32?
        if isRegularFile, !checkedBefore, case .inProcess = placement ?? isolation {
            descriptor = try? ELFFileReader.openFile(path, followingLinks: false)
        }
        defer { if let descriptor { close(descriptor) } }
        let status: FileStatus
        do {
            status = try FileStatus.ofLibrary(path, descriptor: descriptor)
        } catch {
            return .settled(.failed(path, error))
        }
        loaded.noteTried(path, status)
        if let same = loaded.earlierTry(of: status.identity, at: path) {
            return .settled(.skipped(path, sameFileAs: same))
        }
        let warnings: [String]
        do {
            warnings = try trust.admit(path, status)
        } catch {
            return .settled(.failed(path, error))
        }
        let key = cache == nil ? nil : ScanCacheKey(path: path, status: status)
        let valid = if let key, let cached, cached.isValid(for: key) { cached } else { ScanCacheRecord?.none }
        if reusesScanCache, !retryCrashed, valid?.kind == .crashed, let crash = valid?.entry {
            return .settled(crash.report(at: path))
        }
        if case .workers(let worker) = placement ?? isolation {
            return .worker(path, worker: worker, status: status, key: key)
        }
        if checkedBefore, let key, valid?.vouchesForContents(of: key) == true {
            return .here(path, status, warnings: warnings, opening: .checked(.success(LoadedLibrary.label(path))), remember: false)
        }
        let remember = key != nil
        guard let descriptor else { return .here(path, status, warnings: warnings, opening: nil, remember: remember) }
        let label = Result { () throws(LoadFailure) in try LoadedLibrary.check(path, fileSize: status.size, descriptor: descriptor) }
        return .here(path, status, warnings: warnings, opening: .checked(label), remember: remember)
    }

    /// Loads what `admission` admitted into `target`; see ``loadLibrary(at:trust:placement:into:)``.
    private func load(_ admission: Admission, trust: PluginTrust, into target: PluginRegistry) -> LoadReport {
        callSite.decorators.confinement?.adopt()
        defer { callSite.decorators.confinement?.drain() }
        let report: LoadReport
        switch admission {
        case .settled(let settled):
            report = settled
        case .worker(let path, let worker, let status, let key):
            report = loadInWorker(path, worker: worker, trust: trust, file: status, into: target)
            if let key, loaded.lostWhileLoading[path] != nil, let failure = report.failure {
                scanCache?.recordCrash(failure, for: key)
            } else if let key, report.status == .loaded, scanCache?.kind(for: key) == .crashed {
                // Retried (--retry-failed, --no-cache) and loaded: no longer remembered as crashed.
                scanCache?.forget(path)
            }
        case .here(let path, let status, let warnings, let opening, let remember):
            report = loadHere(path, status: status, warnings: warnings,
                              opened: opening?.opened(path, status.identity, calls: libraryCalls), into: target)
            if report.status == .loaded, remember { scanCache?.notePassedChecks(ScanCacheKey(path: path, status: status)) }
        }
        if report.status == .failed { loaded.noteFailed(report.path) }
        return report
    }

    /// Loads the library at `path`, whose `status` passed the trust rule with `warnings`, in this
    /// process (`opened`: already opened, or why it could not be), and registers its plugins into `target`.
    private func loadHere(_ path: String, status: FileStatus, warnings: [String], opened: Result<LoadedLibrary.Opened, LoadFailure>?,
                          into target: PluginRegistry) -> LoadReport {
        let owner = owner
        let library: LoadedLibrary
        // Until the library has registered its plugins, the policy's default rule is its rule.
        let gate = ServiceGate(log: pluginLogSink)
        if let accessPolicy { gate.apply(accessPolicy, library: path, plugins: nil) }
        do {
            library = try LibraryTable.shared.acquire(path: path, identity: status.identity, fileSize: status.size, opened: opened, owner: owner,
                                                      sink: pluginLogSink, refusals: busRefusalHandler, files: filesAccess,
                                                      gate: gate, calls: libraryCalls)
        } catch {
            var report = LoadReport.failed(path, error.failure)
            report.abi = error.abi
            return report
        }
        library.invocations.attach(owner, invoker, bus)
        var report = LoadReport(path: path, status: .loaded)
        report.abi = library.abi
        report.sandbox = SandboxSummary(mode: "in-process", layers: [], grants: [])
        report.warnings = warnings
        report.refused = library.refusals
        let summaries = library.definitions.map { definition in
            PluginSummary(descriptor: definition.descriptor, concerns: definition.concerns, source: .library(path: path),
                          functions: definition.functions.declarations, refusedFunctions: definition.functions.refused)
        }
        return register(summaries, of: path, into: report, in: target, gate: library.gate) { (index) throws(LoadFailure) in
            try target.add(library.definitions[index], from: library)
        } keep: { _ in
            loaded.keep(library)
        } release: {
            LibraryTable.shared.release(library, owner: owner, calls: libraryCalls)
        }
    }

    /// The end of every load, in process or in a worker: registers each plugin the library
    /// registered into `target` (`add` with its index; an id claimed twice is refused, see
    /// ``claim(_:path:in:contesting:register:)``), then either applies the policy to the library's `gate` and
    /// `keep`s the library, given the plugins registered, or, with none registered, `release`s it and
    /// fails the report. Not `contesting` (a restarted worker's library), an id another plugin has
    /// stays that plugin's: the restarted library registered it only now, while the other served.
    func register(_ summaries: [PluginSummary], of path: String, into report: consuming LoadReport, in target: PluginRegistry,
                  gate: ServiceGate, contesting: Bool = true, add: (Int) throws(LoadFailure) -> Void,
                  keep: ([PluginSummary]) -> Void, release: () -> Void) -> LoadReport {
        // The list itself when every plugin registers, as nearly always: no list made per library.
        report.plugins = summaries
        var removed = 0
        for (index, summary) in summaries.enumerated() {
            do throws(LoadFailure) {
                try claim(summary.descriptor.id, path: path, in: target, contesting: contesting) { () throws(LoadFailure) in
                    try add(index)
                }
            } catch {
                report.plugins.remove(at: index - removed)
                removed += 1
                report.refused.append(PluginRefusal(id: summary.descriptor.id.rawValue, failure: error))
            }
        }
        guard report.plugins.isEmpty else {
            if let accessPolicy { gate.apply(accessPolicy, library: path, plugins: report.plugins.map(\.descriptor.id)) }
            keep(report.plugins)
            return report
        }
        release()
        report.failForNoPlugin()
        return report
    }

    /// Registers one plugin of a library. An id another library registered
    /// first is withdrawn from that library too, and refused for every library
    /// from then on (not `contesting`: refused for this library only); a built-in
    /// plugin's id is refused for the library only. `register` adds it to `target`
    /// once the id is free.
    private func claim(_ id: PluginID, path: String, in target: PluginRegistry, contesting: Bool,
                       register: () throws(LoadFailure) -> Void) throws(LoadFailure) {
        if case .library(let first)? = target.source(of: id) {
            guard contesting else {
                throw LoadFailure(.register, "plugin id '\(id)' is registered by \(first), which serves it; a restarted "
                                  + "library cannot take it")
            }
            let refusal = LoadFailure.contested(id, first: first, second: path)
            target.withdraw(id, refusal: refusal)
            releaseIfUnused(first, in: target)
            throw refusal
        }
        try register()
    }

    /// Releases the library loaded from `path` when none of its plugins is registered in `target` any more.
    private func releaseIfUnused(_ path: String, in target: PluginRegistry) {
        guard !target.entries.contains(where: { $0.source == .library(path: path) }) else { return }
        if let library = loaded.remove(loadedFrom: path) {
            LibraryTable.shared.release(library, owner: owner, calls: libraryCalls)
        }
        for worker in loaded.workers(loadedFrom: path) { worker.close(timeout: workerGrace) }
    }

    /// Lets go of what loaded the library at `path` for a live change that did not take it: its worker
    /// `connection` (`deinit`, then it ends), or in process the library itself (its `deinit` runs when
    /// no other host holds it); its observations end either way. The file stays tried: it is not
    /// tried again until it changes.
    func drop(_ path: String, connection: WorkerConnection?) {
        if let connection {
            retire([connection])
        } else if let library = loaded.remove(loadedFrom: path) {
            // A library the host also serves from (a join of one it holds) keeps its observations.
            // Otherwise they end after its `deinit`, which may observe too.
            let servesOn = loaded.holds(library)
            LibraryTable.shared.release(library, owner: owner, calls: libraryCalls)
            if !servesOn { bus.removeObservers(of: library.observerOwner) }
        }
    }

    /// Closes `connections`, workers of versions the host no longer uses, each after its `deinit` (their
    /// observations end as they close: ``WorkerBusRelay/close(_:)``), and lets go of them once no
    /// operation calls plugins (a roster being dispatched may still reach them). Returns the sentence
    /// of each that failed in `deinit`.
    @discardableResult
    func retire(_ connections: [WorkerConnection]) -> [String] {
        let failures = connections.compactMap { $0.close(timeout: workerGrace) }
        registry.afterCalls { [weak self] in
            // The rosters are made anew first: no old one, with its unretained reach, outlives them.
            self?.registry.prepare()
            self?.loaded.forget(connections)
        }
        return failures
    }

    /// How the worker of the library at `path` ended while it loaded the library or served a call, if it did.
    func workerEnding(of path: String) -> WorkerEnding? {
        loaded.lostWhileLoading[path] ?? loaded.workers(loadedFrom: path).lazy.compactMap(\.reportedEnding).first
    }

    /// Unregisters every plugin and lets go of every library and worker; see ``PluginHost/shutdown()``.
    @discardableResult
    func shutdown() -> [String] {
        registry.removeAll()
        let (libraries, workers) = loaded.removeAll()
        for library in libraries {
            LibraryTable.shared.release(library, owner: owner, calls: libraryCalls)
        }
        let failures = workers.compactMap { $0.close(timeout: workerGrace) }
        // After every deinit: what a library observed or posted in its deinit must not outlive it.
        bus.removeAll()
        // What the libraries' deinit sent from their workers' threads, under confinement.
        callSite.decorators.confinement?.drain()
        return failures
    }
}
