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
        let libraries = LoadCandidate.all(in: searchPath, trust: trust).map { candidate in
            switch candidate {
            case .refused(let report):
                refusedDirectories.insert(report.path)
                return ScannedLibrary(report: report, cached: false)
            case .file(let path, let directoryWarnings):
                found.insert(path)
                return library(at: path, directoryWarnings: directoryWarnings, trust: trust, options: options, seen: &seen)
            }
        }
        let listed = searchPath.directories.map(\.path).filter { !refusedDirectories.contains($0) }
        forgetRemovedFiles(of: listed, found: found)
        return ContestedPluginIDs.withdraw(from: libraries)
    }

    /// The report of the one library at `path`, from the cache when the file is unchanged.
    public mutating func library(at path: String, trust: PluginTrust = .strict,
                                 options: ScanOptions = ScanOptions()) -> ScannedLibrary {
        var seen: [FileIdentity: String] = [:]
        return library(at: path, directoryWarnings: [], trust: trust, options: options, seen: &seen)
    }

    private mutating func library(at path: String, directoryWarnings: [String], trust: PluginTrust,
                                  options: ScanOptions, seen: inout [FileIdentity: String]) -> ScannedLibrary {
        let status: FileStatus
        let warnings: [String]
        do throws(LoadFailure) {
            status = try FileStatus.ofLibrary(path)
            if let same = seen[status.identity] { return ScannedLibrary(report: .skipped(path, sameFileAs: same), cached: false) }
            seen[status.identity] = path
            warnings = try directoryWarnings + trust.admit(path, status)
        } catch {
            return ScannedLibrary(report: .failed(path, error), cached: false)
        }
        let key = ScanCacheKey(path: path, status: status)
        if options.reuse, let entry = entry(for: key), !(options.retryCrashed && entry.isCrash) {
            return ScannedLibrary(report: entry.report(at: path).adding(warnings), cached: true)
        }
        let entry = options.load(path)
        // A file replaced while it was loaded is not remembered under the key of the old one.
        if (try? ScanCacheKey(path: path)) == key {
            store(entry, for: key)
        } else {
            forget(path)
        }
        return ScannedLibrary(report: entry.report(at: path).adding(warnings), cached: false)
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
