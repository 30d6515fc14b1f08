/// Changes to a running host's libraries, applied between events on the dispatch thread: a library
/// joins, a changed one is reloaded, a removed one leaves (``applyChanges(in:trust:)`` finds which).
///
/// Nothing is ever unloaded from a process. With workers, a new version is loaded in a new worker
/// beside the old one (``StagedLibrary``); the old version's plugins hand their states over, the new
/// ones catch up with the application's events, and only then does the host switch to them and end
/// the old worker; anything that fails before the switch leaves the old version serving. In process,
/// a library can join; a change to one already loaded is reported once as needing a restart.
final class LiveLibraries {
    private let loader: LibraryLoader
    private let registry: PluginRegistry
    private let callSite: PluginCallSite
    private let workers: WorkerSupervisor
    private let savedState: SavedStateKeeper
    private let dispatcher: EventDispatcher
    private let log: PluginHost.LogHandler
    /// The in-process libraries reported as needing a restart, with the file they were reported for
    /// (nil: removed): each change is reported once.
    private var restartReported: [String: FileStatus?] = [:]
    /// The folders or files a pass found refused (a folder that fails the trust rule now, a name that is
    /// not UTF-8), with why: each is logged once, until it changes or passes again.
    private var refusalsLogged: [String: String] = [:]

    /// The live changes of the host whose parts these are.
    init(loader: LibraryLoader, callSite: PluginCallSite, workers: WorkerSupervisor, savedState: SavedStateKeeper,
         dispatcher: EventDispatcher, log: @escaping PluginHost.LogHandler) {
        self.loader = loader
        registry = loader.registry
        self.callSite = callSite
        self.workers = workers
        self.savedState = savedState
        self.dispatcher = dispatcher
        self.log = log
    }

    /// Compares the files of `searchPath` with the ones the host tried, and applies what changed: a
    /// new file joins, a changed one (another inode, size, modification time, owner or permissions) is reloaded, and a
    /// removed one leaves. A file still open for writing is left for a later call; a file that failed
    /// is not tried again until it changes. Returns one change per library, in loading order.
    func applyChanges(in searchPath: PluginSearchPath, trust: PluginTrust) -> [LibraryChange] {
        var changes: [LibraryChange] = []
        var present: Set<String> = []
        let held = heldPaths
        let candidates = LoadCandidate.all(in: searchPath, trust: trust)
        logRefusals(candidates)
        for case .file(let path, _, _) in candidates {
            guard let status = try? FileStatus.ofLibrary(path) else {
                // A name that leads to no regular file (a dangling or looping link) is no library: a
                // held one leaves. Another failure (a folder briefly unreadable) changes nothing.
                if !Self.leadsNowhere(path) { present.insert(path) }
                continue
            }
            present.insert(path)
            if let tried = loader.loaded.triedStatus[path], tried.isSameFile(as: status) { continue }
            // Only a file that changed is opened, for the writer check.
            guard !LibraryFile.isOpenForWriting(path) else { continue }
            changes.append(held.contains(path) ? reload(path, trust: trust, because: "changed") : join(path, trust: trust))
        }
        for path in held where !present.contains(path) && (try? FileStatus.ofLibrary(path)) == nil {
            if let change = leave(path, because: "was removed") { changes.append(change) }
        }
        // An id may move from one library to another in one deployment: a library refused an id that
        // a later change of this pass freed (it left, or its new version dropped it) is tried once
        // more, after all of them, whether it was refused whole or in part. So is one skipped as the
        // same file as a library that left (a renamed file).
        let freed = Set(changes.flatMap { $0.kind == .left ? $0.plugins : $0.departed }.map(\.rawValue))
        let left = Set(changes.filter { $0.kind == .left }.map(\.path))
        if !freed.isEmpty || !left.isEmpty {
            let serving = heldPaths
            for index in changes.indices where changes[index].load.map({ load in
                load.refused.contains { freed.contains($0.id) } || load.sameFileAs.map(left.contains) == true
            }) == true {
                let path = changes[index].path
                changes[index] = changes[index].followed(by: serving.contains(path) ? reload(path, trust: trust, because: "changed")
                                                            : join(path, trust: trust))
            }
        }
        return changes.filter { $0.kind != .restartNeeded || firstReport(of: $0.path) }
    }

    /// Loads the library at `path` into the running host: see ``PluginHost/join(libraryAt:trust:)``.
    func join(_ path: String, trust: PluginTrust) -> LibraryChange {
        let start = MonotonicClock.now()
        loader.loaded.forgetTry(of: path)
        let staged = stage(path, trust: trust, replacing: nil)
        var change = LibraryChange(.joined, path: path)
        if bringUp(staged, into: &change, failing: .joinFailed, from: { savedState.store?.load($0) ?? .none }) {
            switchTo(staged)
            change.plugins = staged.ids
        } else if staged.report.status == .skipped {
            (change.kind, change.failure) = (.skipped, nil)
        }
        change.nanoseconds = MonotonicClock.now() &- start
        return change
    }

    /// Replaces the library at `path` with the file there now: see ``PluginHost/reload(libraryAt:trust:)``.
    /// `what` says what happened to the file, for an in-process library's ``LibraryChange/Kind/restartNeeded``.
    func reload(_ path: String, trust: PluginTrust, because what: String) -> LibraryChange {
        let start = MonotonicClock.now()
        let old = registry.summaries.filter { $0.source == .library(path: path) }
        guard !old.isEmpty else { return join(path, trust: trust) }
        guard !isInProcess(path) else { return restartNeeded(path, what) }
        let oldIDs = Set(old.map(\.descriptor.id))
        var change = LibraryChange(.reloaded, path: path)
        change.fromVersion = LibraryChange.version(of: old)
        loader.loaded.forgetTry(of: path)
        let staged = stage(path, trust: trust, replacing: path)
        // The old version's states, asked for once the new version loaded.
        var captured = staged.loaded ? savedState.capture(only: oldIDs) : SavedStateKeeper.Captured()
        let handedOver = Dictionary(captured.files.map { (PluginID(unchecked: $0.pluginID), $0) }) { first, _ in first }
        guard bringUp(staged, into: &change, failing: .reloadFailed, from: { id in
            handedOver[id].map(SavedStateLookup.found) ?? savedState.store?.load(id) ?? .none
        }) else {
            change.nanoseconds = MonotonicClock.now() &- start
            return change
        }
        let replaced = loader.loaded.workers(loadedFrom: path).filter { $0 !== staged.connection }
        registry.removeAll(from: .library(path: path))
        switchTo(staged)
        change.plugins = staged.ids
        change.departed = old.map(\.descriptor.id).filter { !staged.ids.contains($0) }
        change.nanoseconds = MonotonicClock.now() &- start
        // The plugins that left with the old version keep their states in the store.
        let departed = Set(change.departed)
        captured.files.removeAll { !departed.contains(PluginID(unchecked: $0.pluginID)) }
        captured.entries.removeAll { !departed.contains($0.plugin) }
        if let store = savedState.store, !departed.isEmpty { change.states.append(savedState.write(captured, to: store)) }
        change.warnings += loader.retire(replaced)
        return change
    }

    /// Has the plugins of the library at `path` save their states and leave: see
    /// ``PluginHost/unload(libraryAt:)``. nil when nothing of it serves. `what` says what happened to
    /// the file, for an in-process library's ``LibraryChange/Kind/restartNeeded``.
    func leave(_ path: String, because what: String) -> LibraryChange? {
        let start = MonotonicClock.now()
        let old = registry.summaries.filter { $0.source == .library(path: path) }
        loader.loaded.forgetTry(of: path)
        guard !old.isEmpty else { return nil }
        guard !isInProcess(path) else { return restartNeeded(path, what) }
        var change = LibraryChange(.left, path: path)
        change.fromVersion = LibraryChange.version(of: old)
        change.plugins = old.map(\.descriptor.id)
        let captured = savedState.capture(only: Set(change.plugins))
        if let store = savedState.store { change.states.append(savedState.write(captured, to: store)) }
        let leaving = loader.loaded.workers(loadedFrom: path)
        registry.removeAll(from: .library(path: path))
        change.warnings = loader.retire(leaving)
        change.nanoseconds = MonotonicClock.now() &- start
        return change
    }

    /// Loads the library at `path` beside the running plugins, refusing the ids another source serves
    /// (`replacing`'s own, the library being reloaded, are free) and those two libraries claimed.
    private func stage(_ path: String, trust: PluginTrust, replacing: String?) -> StagedLibrary {
        // A new version runs where the old one does: in a worker of the same executable.
        let placement = replacing.flatMap { loader.loaded.workers(loadedFrom: $0).last }.map { PluginIsolation.workers(worker: $0.worker) }
        let staged = StagedLibrary(path: path, trust: trust, placement: placement, loader: loader, callSite: callSite,
                                   timing: dispatcher.timing, interruption: workers.interruption, log: log)
        staged.refuseTaken { id in
            if let contested = registry.refusal(forContested: id) { return contested }
            guard let source = registry.source(of: id), source != .library(path: replacing ?? "") else { return nil }
            return LoadFailure(.register, "plugin id '\(id)' is registered by \(source) already; a library joining a "
                               + "running host cannot take it")
        }
        return staged
    }

    /// Makes the staged plugins the host's: they take part from the next event, their functions
    /// resolve, their observers get the notifications waiting. Their worker may be restarted as
    /// often as the host allows, whatever an earlier version of the library used.
    private func switchTo(_ staged: StagedLibrary) {
        loader.loaded.forgetRestarts(of: staged.report.path)
        savedState.noteUnusable(staged.savedState.unusable)
        do {
            try registry.adopt(staged.registry)
        } catch {
            // The ids were checked free; a refusal here is reported, not hidden.
            log(PluginLogRecord(source: HostIdentity.name, plugin: nil, level: .error,
                                message: "\(staged.report.path): \(error.description)"))
        }
    }

    /// Restores the staged plugins' states (each from `lookup`) and catches them up with the application,
    /// noting the load, the restore and the catch-up in `change`. Returns whether the host can switch to
    /// them; when it cannot, the staged library is dropped and `change` becomes a failure of `kind`.
    private func bringUp(_ staged: StagedLibrary, into change: inout LibraryChange, failing kind: LibraryChange.Kind,
                         from lookup: (PluginID) -> SavedStateLookup) -> Bool {
        change.load = staged.report
        change.toVersion = LibraryChange.version(of: staged.report.plugins)
        if staged.loaded {
            change.states.append(staged.savedState.restore(only: nil, from: lookup))
            (change.catchUp, change.warnings) = staged.catchUp(dispatcher.phase.catchUp)
        }
        guard let failure = staged.failure else { return true }
        loader.drop(staged.report.path, connection: staged.connection)
        change.kind = kind
        change.failure = failure
        return false
    }

    /// Logs, once each until it changes or passes again, a folder or file `candidates` refuse: its
    /// libraries' changes are not applied meanwhile, and nothing else would say so.
    private func logRefusals(_ candidates: [LoadCandidate]) {
        var refused: [String: String] = [:]
        for case .refused(let report) in candidates {
            refused[report.path] = report.failure?.description ?? "refused"
        }
        for (path, cause) in refused.sorted(by: { $0.key < $1.key }) where refusalsLogged[path] != cause {
            log(PluginLogRecord(source: HostIdentity.name, plugin: nil, level: .warning,
                                message: "\(path) is refused (\(cause)): what changes in it is not applied until it passes"))
        }
        refusalsLogged = refused
    }

    /// The report that an in-process library `what` (changed, was removed) and cannot follow.
    private func restartNeeded(_ path: String, _ what: String) -> LibraryChange {
        var change = LibraryChange(.restartNeeded, path: path)
        change.failure = what + ", but it is loaded in the host's process, where a library is never unloaded; "
            + "it serves as it was loaded"
        change.plugins = registry.ids(from: .library(path: path))
        return change
    }

    /// Whether `path` leads to no file (a dangling or looping link too) or to one that is not regular.
    private static func leadsNowhere(_ path: String) -> Bool {
        do {
            return !(try FileStatus.of(path)).isRegularFile
        } catch {
            return error == .noSuchFileOrDirectory || error == .tooManySymbolicLinkLevels
        }
    }

    /// Whether the file at `path` now differs from the one last reported as needing a restart: the
    /// scan reports each change of an in-process library once.
    private func firstReport(of path: String) -> Bool {
        let status = try? FileStatus.ofLibrary(path)
        defer { restartReported[path] = .some(status) }
        guard let reported = restartReported[path] else { return true }
        switch (reported, status) {
        case (nil, nil): return false
        case (let reported?, let status?): return !reported.isSameFile(as: status)
        default: return true
        }
    }

    /// The libraries whose plugins serve.
    private var heldPaths: Set<String> {
        Set(registry.entries.compactMap { entry in
            guard case .library(let path) = entry.source else { return nil }
            return path
        })
    }

    /// Whether the plugins of the library at `path` run in the host's process.
    private func isInProcess(_ path: String) -> Bool {
        registry.entries.contains { entry in
            guard entry.source == .library(path: path), case .native = entry.implementation else { return false }
            return true
        }
    }
}
