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
        let directory = String(cString: current)
        return (directory.hasSuffix("/") ? directory : directory + "/") + path
    }
}
