import SystemPackage

/// What walking a search path finds: a file to try, or the report of a directory whose files
/// are not tried. Loading (``LibraryLoader``) and listing (``ScanCache``) walk the same way.
enum LoadCandidate {
    /// A candidate file, with the trust warnings its directory passes on to it; `isRegularFile` when
    /// its directory says it is one (``PluginDirectoryScanner/Entry/isRegularFile``).
    case file(String, directoryWarnings: [String], isRegularFile: Bool)
    /// An explicit directory that cannot be scanned, any directory that fails the trust rule, or a
    /// file whose name is not UTF-8.
    case refused(LoadReport)

    /// The candidate file's path; nil for a refused candidate.
    var filePath: String? {
        if case .file(let path, _, _) = self { path } else { nil }
    }

    /// The candidate files of every directory of `searchPath`, in loading order, and the
    /// reports of the directories that cannot be scanned (explicit ones only) or are refused by `trust`.
    static func all(in searchPath: PluginSearchPath, trust: PluginTrust) -> [LoadCandidate] {
        var candidates: [LoadCandidate] = []
        for directory in searchPath.directories {
            let files: [PluginDirectoryScanner.Entry]
            let status: FileStatus
            do throws(LoadFailure) {
                files = try PluginDirectoryScanner.scan(directory.path)
                status = try FileStatus.ofCandidate(directory.path)
            } catch {
                if directory.isExplicit { candidates.append(.refused(.failed(directory.path, error))) }
                continue
            }
            do throws(LoadFailure) {
                let warnings = try trust.admit(directory.path, status)
                candidates += files.map { file in
                    file.nameIsUTF8 ? .file(file.path, directoryWarnings: warnings, isRegularFile: file.isRegularFile)
                        : .refused(.failed(file.path, LoadFailure(.scan, "the file's name is not UTF-8 (shown with U+FFFD); rename the file")))
                }
            } catch {
                candidates.append(.refused(.failed(directory.path, error)))
            }
        }
        return candidates
    }
}

extension FileStatus {
    /// The `stat` of a plugin library file, or a scan failure: it cannot be read or is not a regular file.
    /// `descriptor` is the file at `path` already open, nil to look the path up.
    static func ofLibrary(_ path: String, descriptor: Int32? = nil) throws(LoadFailure) -> FileStatus {
        let status = if let descriptor { try ofOpenFile(descriptor) } else { try ofCandidate(path) }
        guard status.isRegularFile else { throw LoadFailure(.scan, "not a regular file") }
        return status
    }

    /// The `fstat` of the plugin file open as `descriptor`, or a scan failure naming the cause.
    private static func ofOpenFile(_ descriptor: Int32) throws(LoadFailure) -> FileStatus {
        do {
            return try FileStatus.of(descriptor: descriptor)
        } catch {
            throw LoadFailure(.scan, "cannot access the file", systemError: error.description)
        }
    }

    /// The `stat` of a plugin file or directory, or a scan failure naming the cause.
    fileprivate static func ofCandidate(_ path: String) throws(LoadFailure) -> FileStatus {
        do {
            return try FileStatus.of(path)
        } catch {
            throw LoadFailure(.scan, error == .noSuchFileOrDirectory ? "the file does not exist" : "cannot access the file",
                              systemError: error.description)
        }
    }
}
