import Glibc

/// Loading libraries into a host, following the loading rules: stable order,
/// each file once, one bad file never stops the others.
extension PluginHost {
    /// Scans every directory of `searchPath` and loads each candidate file.
    /// Returns one report per file (and one per directory that could not be scanned).
    public func loadPlugins(from searchPath: PluginSearchPath) -> [LoadReport] {
        var reports: [LoadReport] = []
        for directory in searchPath.directories {
            switch PluginDirectoryScanner.scan(directory.path) {
            case .success(let files):
                for file in files { reports.append(loadLibrary(at: file)) }
            case .failure(let failure):
                if directory.isExplicit { reports.append(.failed(directory.path, failure)) }
            }
        }
        return reports
    }

    /// Loads the library at `path` and registers its plugins.
    public func loadLibrary(at path: String) -> LoadReport {
        let identity: FileIdentity
        let fileSize: Int
        switch FileIdentity.of(path) {
        case .failure(let error):
            return .failed(path, LoadFailure(.scan, error.code == ENOENT ? "the file does not exist" : "cannot access the file",
                                             systemError: error.description))
        case .success(let (found, isRegular, size)):
            guard isRegular else { return .failed(path, LoadFailure(.scan, "not a regular file")) }
            identity = found
            fileSize = size
        }
        if let same = triedFiles[identity] {
            var report = LoadReport(path: path, status: .skipped)
            report.sameFileAs = same
            return report
        }
        triedFiles[identity] = path
        var abi: LibraryABI?
        let owner = ObjectIdentifier(self)
        let acquired = LibraryTable.shared.acquire(path: path, identity: identity, fileSize: fileSize, owner: owner,
                                                     sink: logHandler, files: fileFacade, abi: &abi)
        var report = LoadReport(path: path, status: .loaded)
        report.abi = abi
        let library: LoadedLibrary
        switch acquired {
        case .failure(let failure):
            report.status = .failed
            report.failure = failure
            return report
        case .success(let loaded): library = loaded
        }
        report.refused = library.refusals
        for definition in library.definitions {
            do {
                try registry.add(definition, from: library)
                report.plugins.append(PluginSummary(
                    descriptor: definition.descriptor, concerns: definition.concerns, source: .library(path: path)))
            } catch {
                report.refused.append(PluginRefusal(id: definition.descriptor.id.rawValue, failure: error))
            }
        }
        guard report.plugins.isEmpty else {
            libraries.append(library)
            return report
        }
        LibraryTable.shared.release(library, owner: owner)
        report.status = .failed
        report.failure = LoadFailure(.register, report.refused.isEmpty
            ? "the library registered no plugin"
            : "no plugin of the library could be registered: " + report.refused.map(\.failure.message).joined(separator: "; "))
        return report
    }
}
