import SystemPackage

/// Loading libraries into a host, following the loading rules: stable order,
/// each file once, trusted files only, one bad file never stops the others,
/// and an id two libraries claim belongs to neither.
extension PluginHost {
    /// Scans every directory of `searchPath` and loads each candidate file.
    /// Returns one report per file (and one per directory that could not be
    /// scanned or failed the trust rule, whose files are then not tried).
    /// A plugin id claimed by two libraries is refused for both: their reports say so.
    /// `trust` decides whether a file or directory another user could change is
    /// refused (``PluginTrust/strict``, the default) or loaded with a report warning.
    public func loadPlugins(from searchPath: PluginSearchPath, trust: PluginTrust = .strict) -> [LoadReport] {
        let candidates = Self.candidates(in: searchPath, trust: trust)
        prestartWorkers(for: candidates, trust: trust)
        defer { for unused in loaded.takeUnusedPrestarted() { unused.close(timeout: workerGrace) } }
        let reports = candidates.map { candidate in
            switch candidate {
            case .refused(let report):
                return report
            case .file(let path, let directoryWarnings):
                let start = MonotonicClock.now()
                var report = loadLibrary(at: path, trust: trust)
                report.loadTime = LoadTime(start: start, nanoseconds: MonotonicClock.now() &- start)
                report.warnings = directoryWarnings + report.warnings
                return report
            }
        }
        return reports.map(withdrawingContestedPlugins)
    }

    /// What walking a search path finds: a file to try, or the report of a directory whose files are not tried.
    enum Candidate {
        /// A candidate file, with the trust warnings its directory passes on to it.
        case file(String, directoryWarnings: [String])
        /// An explicit directory that cannot be scanned, or any directory that fails the trust rule.
        case refused(LoadReport)
    }

    /// The candidate files of every directory of `searchPath`, in loading order, and the
    /// reports of the directories that cannot be scanned (explicit ones only) or are refused by `trust`.
    static func candidates(in searchPath: PluginSearchPath, trust: PluginTrust) -> [Candidate] {
        var candidates: [Candidate] = []
        for directory in searchPath.directories {
            let files: [String]
            let status: FileStatus
            do throws(LoadFailure) {
                files = try PluginDirectoryScanner.scan(directory.path)
                status = try Self.status(of: directory.path)
            } catch {
                if directory.isExplicit { candidates.append(.refused(.failed(directory.path, error))) }
                continue
            }
            do throws(LoadFailure) {
                let warnings = try trust.admit(directory.path, status)
                candidates += files.map { .file($0, directoryWarnings: warnings) }
            } catch {
                candidates.append(.refused(.failed(directory.path, error)))
            }
        }
        return candidates
    }

    /// Loads the library at `path` and registers its plugins, if the file passes
    /// the trust rule (or `trust` is ``PluginTrust/allowInsecure``): in a worker or in
    /// this process as `placement` says, the host's ``isolation`` when nil. One host may
    /// hold libraries of both placements; events, function calls and `invoke` reach
    /// their plugins the same way.
    ///
    /// When a later library claims one of its plugin ids, that plugin is
    /// withdrawn (``plugins`` shows it; ``loadPlugins(from:trust:)`` amends the
    /// reports), and a library left with no plugin is released.
    public func loadLibrary(at path: String, trust: PluginTrust = .strict, placement: PluginIsolation? = nil) -> LoadReport {
        confinement?.adopt()
        defer { confinement?.drain() }
        let status: FileStatus
        do {
            status = try Self.libraryStatus(of: path)
        } catch {
            return .failed(path, error)
        }
        if let same = loaded.earlierTry(of: status.identity, at: path) {
            return .skipped(path, sameFileAs: same)
        }
        let warnings: [String]
        do {
            warnings = try trust.admit(path, status)
        } catch {
            return .failed(path, error)
        }
        let key = scanCache == nil ? nil : try? ScanCacheKey(path: path)
        if !retryCrashed, let key, let remembered = scanCache?.entry(for: key), case .crashed = remembered {
            return remembered.report(at: path)
        }
        if case .workers(let worker) = placement ?? isolation {
            let report = loadInWorker(path, worker: worker, trust: trust)
            if let key, loaded.lostWhileLoading[path] != nil, let failure = report.failure {
                scanCache?.recordCrash(failure, for: key)
            }
            return report
        }
        let owner = ObjectIdentifier(self)
        let library: LoadedLibrary
        // Until the library has registered its plugins, the policy's default rule is its rule.
        let gate = ServiceGate(log: pluginLogSink)
        if let accessPolicy { gate.apply(accessPolicy, library: path, plugins: nil) }
        do {
            library = try LibraryTable.shared.acquire(path: path, identity: status.identity, fileSize: status.size, owner: owner,
                                                      sink: pluginLogSink, refusals: busRefusalHandler, files: filesAccess,
                                                      gate: gate, calls: libraryCalls)
        } catch {
            var report = LoadReport.failed(path, error.failure)
            report.abi = error.abi
            return report
        }
        library.invocations.attach(owner, functionInvoker, notifications)
        var report = LoadReport(path: path, status: .loaded)
        report.abi = library.abi
        report.sandbox = SandboxSummary(mode: "in-process", layers: [], grants: [])
        report.warnings = warnings
        report.refused = library.refusals
        let summaries = library.definitions.map { definition in
            PluginSummary(descriptor: definition.descriptor, concerns: definition.concerns, source: .library(path: path),
                          functions: definition.functions.declarations, refusedFunctions: definition.functions.refused)
        }
        return register(summaries, of: path, into: report, gate: library.gate) { (index) throws(LoadFailure) in
            try registry.add(library.definitions[index], from: library)
        } keep: { _ in
            loaded.keep(library)
        } release: {
            LibraryTable.shared.release(library, owner: owner, calls: libraryCalls)
        }
    }

    /// The end of every load, in process or in a worker: registers each plugin the library
    /// registered (`add` with its index; an id claimed twice is refused, see ``claim(_:path:register:)``),
    /// then either applies the policy to the library's `gate` and `keep`s the library, given the ids
    /// registered, or, with none registered, `release`s it and fails the report.
    func register(_ summaries: [PluginSummary], of path: String, into report: LoadReport, gate: ServiceGate,
                  add: (Int) throws(LoadFailure) -> Void, keep: ([PluginID]) -> Void,
                  release: () -> Void) -> LoadReport {
        var report = report
        report.plugins = []
        for (index, summary) in summaries.enumerated() {
            do throws(LoadFailure) {
                try claim(summary.descriptor.id, path: path) { () throws(LoadFailure) in try add(index) }
                report.plugins.append(summary)
            } catch {
                report.refused.append(PluginRefusal(id: summary.descriptor.id.rawValue, failure: error))
            }
        }
        guard report.plugins.isEmpty else {
            let ids = report.plugins.map(\.descriptor.id)
            if let accessPolicy { gate.apply(accessPolicy, library: path, plugins: ids) }
            keep(ids)
            return report
        }
        release()
        report.status = .failed
        report.failure = Self.nothingRegistered(report.refused)
        return report
    }

    /// Registers one plugin of a library. An id another library registered
    /// first is withdrawn from that library too, and refused for every library
    /// from then on; a built-in plugin's id is refused for the library only.
    /// `register` adds it to the registry once the id is free.
    func claim(_ id: PluginID, path: String, register: () throws(LoadFailure) -> Void) throws(LoadFailure) {
        if case .library(let first)? = registry.source(of: id) {
            let refusal = LoadFailure(.register, "plugin id '\(id)' is claimed by two libraries, \(first) and \(path): refused for both")
            registry.withdraw(id, refusal: refusal)
            releaseIfUnused(first)
            throw refusal
        }
        try register()
    }

    /// Releases the library loaded from `path` when none of its plugins is registered any more.
    private func releaseIfUnused(_ path: String) {
        guard !registry.entries.contains(where: { $0.source == .library(path: path) }) else { return }
        if let library = loaded.remove(loadedFrom: path) {
            LibraryTable.shared.release(library, owner: ObjectIdentifier(self), calls: libraryCalls)
        }
        for worker in loaded.workers(loadedFrom: path) { worker.close(timeout: workerGrace) }
    }

    /// `report` with its withdrawn plugins moved to ``LoadReport/refused``; failed if none is left.
    private func withdrawingContestedPlugins(_ report: LoadReport) -> LoadReport {
        guard report.status == .loaded else { return report }
        var report = report
        for plugin in report.plugins {
            guard let refusal = registry.refusal(forContested: plugin.descriptor.id) else { continue }
            report.refused.append(PluginRefusal(id: plugin.descriptor.id.rawValue, failure: refusal))
        }
        report.plugins.removeAll { registry.refusal(forContested: $0.descriptor.id) != nil }
        if report.plugins.isEmpty {
            report.status = .failed
            report.failure = Self.nothingRegistered(report.refused)
        }
        return report
    }

    /// The failure of a library left with no registered plugin, naming each refusal.
    static func nothingRegistered(_ refused: [PluginRefusal]) -> LoadFailure {
        LoadFailure(.register, refused.isEmpty
            ? "the library registered no plugin"
            : "no plugin of the library could be registered: " + refused.map(\.failure.message).joined(separator: "; "))
    }

    /// The `stat` of a plugin library file, or a scan failure: it cannot be read or is not a regular file.
    static func libraryStatus(of path: String) throws(LoadFailure) -> FileStatus {
        let status = try Self.status(of: path)
        guard status.isRegularFile else { throw LoadFailure(.scan, "not a regular file") }
        return status
    }

    /// The `stat` of a plugin file or directory, or a scan failure naming the cause.
    private static func status(of path: String) throws(LoadFailure) -> FileStatus {
        do {
            return try FileStatus.of(path)
        } catch {
            throw LoadFailure(.scan, error == .noSuchFileOrDirectory ? "the file does not exist" : "cannot access the file",
                              systemError: error.description)
        }
    }
}
