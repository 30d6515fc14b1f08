/// Listing libraries through the cache: every file is looked at (one `stat`, the trust
/// rule), unchanged ones are answered from the cache without opening them, and the
/// others are loaded by ``ScanOptions/load`` and remembered.
extension ScanCache {
    /// One report per file of `searchPath` (and per directory that cannot be scanned or is
    /// refused), in loading order, like ``PluginHost/loadPlugins(from:trust:)``: the same
    /// file once, the trust rule on every run, cached or not, and a plugin id two libraries
    /// claim refused for both. Call ``save()`` afterwards to keep what was learnt.
    public mutating func list(_ searchPath: PluginSearchPath, trust: PluginTrust = .strict,
                              options: ScanOptions = ScanOptions()) -> [ScannedLibrary] {
        var seen: [FileIdentity: String] = [:]
        var found: Set<String> = []
        var refusedDirectories: Set<String> = []
        let looks = LoadCandidate.all(in: searchPath, trust: trust).map { candidate in
            switch candidate {
            case .refused(let report):
                refusedDirectories.insert(report.path)
                return Look.known(ScannedLibrary(report: report, cached: false))
            case .file(let path, let directoryWarnings, _):
                found.insert(path)
                return look(at: path, directoryWarnings: directoryWarnings, trust: trust, options: options, seen: &seen)
            }
        }
        let libraries = scanning(looks, options: options)
        let listed = searchPath.directories.map(\.path).filter { !refusedDirectories.contains($0) }
        forgetRemovedFiles(of: listed, found: found)
        return ContestedPluginIDs.withdraw(from: libraries)
    }

    /// The report of the one library at `path`, from the cache when the file is unchanged; its
    /// folder passes the trust rule first, as in ``PluginHost/loadLibrary(at:trust:placement:)``.
    public mutating func library(at path: String, trust: PluginTrust = .strict,
                                 options: ScanOptions = ScanOptions()) -> ScannedLibrary {
        let folderWarnings: [String]
        do {
            folderWarnings = try trust.admitFolder(holding: path)
        } catch {
            return ScannedLibrary(report: .failed(path, error), cached: false)
        }
        var seen: [FileIdentity: String] = [:]
        let look = look(at: path, directoryWarnings: folderWarnings, trust: trust, options: options, seen: &seen)
        return scanning([look], options: options)[0]
    }

    /// What a first look at a file finds: its report (a failure, a skip, the cache's answer), or
    /// that it must be scanned.
    private enum Look {
        case known(ScannedLibrary)
        case toScan(path: String, key: ScanCacheKey, warnings: [String])
    }

    /// Looks at the file at `path`: one `stat`, the trust rule, the cache.
    private func look(at path: String, directoryWarnings: [String], trust: PluginTrust, options: ScanOptions,
                      seen: inout [FileIdentity: String]) -> Look {
        let status: FileStatus
        let warnings: [String]
        do throws(LoadFailure) {
            status = try FileStatus.ofLibrary(path)
            if let same = seen[status.identity] { return .known(ScannedLibrary(report: .skipped(path, sameFileAs: same), cached: false)) }
            seen[status.identity] = path
            warnings = try directoryWarnings + trust.admit(path, status)
        } catch {
            return .known(ScannedLibrary(report: .failed(path, error), cached: false))
        }
        let key = ScanCacheKey(path: path, status: status)
        if options.reuse, let entry = entry(for: key), !(options.retryCrashed && entry.isCrash) {
            return .known(ScannedLibrary(report: entry.report(at: path).adding(warnings), cached: true))
        }
        return .toScan(path: path, key: key, warnings: warnings)
    }

    /// The reports of `looks`, in order: the files that must be scanned scanned all at once by
    /// `options`, and what was learnt remembered.
    private mutating func scanning(_ looks: [Look], options: ScanOptions) -> [ScannedLibrary] {
        let paths = looks.compactMap { look in
            if case .toScan(let path, _, _) = look { path } else { nil }
        }
        var entries = (paths.isEmpty ? [] : options.scan(paths)).makeIterator()
        return looks.map { look in
            switch look {
            case .known(let library):
                return library
            case .toScan(let path, let key, let warnings):
                let entry = entries.next() ?? .scanned(report: .failed(path, LoadFailure(.worker, "the scan gave no report")))
                // A file replaced while it was scanned is not remembered under the key of the old one.
                if (try? ScanCacheKey(path: path)) == key {
                    store(entry, for: key)
                } else {
                    forget(path)
                }
                return ScannedLibrary(report: entry.report(at: path).adding(warnings), cached: false)
            }
        }
    }
}

extension ScanCache {
    /// Forgets the libraries remembered in `directories` (listed whole just now) that were not `found` there.
    fileprivate mutating func forgetRemovedFiles(of directories: [String], found: Set<String>) {
        let bases = Set(directories.map { $0.hasSuffix("/") ? $0 : $0 + "/" })
        for path in paths where !found.contains(path) {
            guard let slash = path.lastIndex(of: "/"), bases.contains(String(path[...slash])) else { continue }
            forget(path)
        }
    }
}

extension LoadReport {
    /// The report with `warnings` before its own.
    fileprivate func adding(_ warnings: [String]) -> LoadReport {
        var report = self
        report.warnings = warnings + report.warnings
        return report
    }
}
