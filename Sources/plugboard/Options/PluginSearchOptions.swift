import ArgumentParser
import Foundation
import Plugboard

/// `--plugin-dir`, shared by the commands that scan for plugins.
struct PluginSearchOptions: ParsableArguments {
    @Option(name: .customLong("plugin-dir"),
            help: ArgumentHelp(
                "A directory of *.so plugins; repeat for more (a relative path is taken from the current directory). Default: $PLUGBOARD_PLUGIN_PATH (colon-separated), else $XDG_DATA_HOME/plugboard/plugins (or ~/.local/share/plugboard/plugins), /usr/local/lib/plugboard/plugins, /usr/lib/plugboard/plugins.",
                valueName: "dir"))
    var pluginDirectories: [String] = []

    /// The directories to scan, from the flags, the environment or the defaults; take it
    /// before any plugin code runs: relative directories are made absolute against the
    /// working directory of that moment (the defaults are absolute already).
    var searchPath: PluginSearchPath {
        let resolved = PluginSearchPath.resolve(flags: pluginDirectories, environment: ProcessInfo.processInfo.environment)
        guard resolved.directories.allSatisfy(\.isExplicit) else { return resolved }
        return PluginSearchPath(explicit: resolved.directories.map { WorkingDirectory.absolute($0.path) })
    }

    func validate() throws {
        if let empty = pluginDirectories.first(where: \.isEmpty) {
            throw ValidationError("--plugin-dir needs a directory path, got \(String(reflecting: empty))")
        }
    }
}
