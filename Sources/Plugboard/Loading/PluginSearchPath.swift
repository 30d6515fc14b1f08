/// Where plugins are looked for: the directories given, else `PLUGBOARD_PLUGIN_PATH`,
/// else the default directories.
public struct PluginSearchPath: Sendable, Equatable {
    /// One directory to scan.
    public struct Directory: Sendable, Equatable {
        /// The directory path.
        public let path: String
        /// Whether someone asked for it (flag or environment): then a missing or
        /// unreadable directory is reported; a default one is skipped in silence.
        public let isExplicit: Bool
    }

    /// The directories, in scan order.
    public let directories: [Directory]

    /// The environment variable that lists plugin directories, colon-separated.
    public static let environmentVariable = "PLUGBOARD_PLUGIN_PATH"

    /// Scans exactly `paths`, in order, reporting missing ones.
    public init(explicit paths: [String]) {
        directories = paths.map { Directory(path: $0, isExplicit: true) }
    }

    /// The search path an operator gets: `flags` if any, else the environment
    /// variable if it names a folder, else ``defaultDirectories(environment:)``.
    public static func resolve(flags: [String], environment: [String: String]) -> PluginSearchPath {
        if !flags.isEmpty { return PluginSearchPath(explicit: flags) }
        // A list of nothing but colons names no folder: as if the variable were not set.
        if let list = environment[environmentVariable], case let entries = list.split(separator: ":").map(String.init), !entries.isEmpty {
            return PluginSearchPath(explicit: entries)
        }
        return PluginSearchPath(directories: defaultDirectories(environment: environment)
            .map { Directory(path: $0, isExplicit: false) })
    }

    /// `$XDG_DATA_HOME/plugboard/plugins` (else `~/.local/share/plugboard/plugins`),
    /// then `/usr/local/lib/plugboard/plugins`, then `/usr/lib/plugboard/plugins`.
    public static func defaultDirectories(environment: [String: String]) -> [String] {
        var result: [String] = []
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            result.append(data + "/plugboard/plugins")
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            result.append(home + "/.local/share/plugboard/plugins")
        }
        return result + ["/usr/local/lib/plugboard/plugins", "/usr/lib/plugboard/plugins"]
    }

    private init(directories: [Directory]) {
        self.directories = directories
    }
}
