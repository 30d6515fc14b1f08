import Glibc

/// Relative paths from the command line and the environment, made absolute against
/// the working directory the command started in, before any plugin code runs: a
/// plugin that calls `chdir` in `init` cannot move `--events`, `--container` or a
/// later plugin directory.
enum WorkingDirectory {
    /// `path` when it is absolute or empty (the options report an empty one), else
    /// the working directory joined with it; unchanged when the working directory is gone.
    static func absolute(_ path: String) -> String {
        guard !path.isEmpty, !path.hasPrefix("/"), let current = getcwd(nil, 0) else { return path }
        defer { free(current) }
        return joined(String(cString: current), path)
    }

    /// The folder `path` is in (`.` for a bare name, `/` for a name at the root).
    static func folder(holding path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `relative` joined to `directory`, a path with no symbolic link in it (as `getcwd` gives):
    /// its leading `.` and `..` segments are resolved against `directory`, which is safe only
    /// there (past a name that may be a link, `..` is left to the file system), so that
    /// `../plugins` is shown as the folder it names.
    static func joined(_ directory: String, _ relative: String) -> String {
        var directory = Substring(directory)
        var rest = Substring(relative)
        while let segment = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first,
              segment.isEmpty || segment == "." || segment == ".." {
            if segment == "..", let slash = directory.lastIndex(of: "/") {
                directory = directory[..<slash]
            }
            rest = rest.dropFirst(segment.count).drop { $0 == "/" }
            if rest.isEmpty { break }
        }
        let base = directory.hasSuffix("/") ? directory.dropLast() : directory
        return rest.isEmpty ? (base.isEmpty ? "/" : String(base)) : String(base) + "/" + rest
    }
}
