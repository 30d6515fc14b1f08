import ArgumentParser
import Plugboard

/// `--allow-insecure`, shared by the commands that load plugins.
struct TrustOptions: ParsableArguments {
    @Flag(name: .customLong("allow-insecure"),
          help: "Load plugin files and directories that are writable by group or others, or owned by a user other than root and you; each such library's report says it was loaded anyway.")
    var allowInsecure = false

    /// The trust rule the loader applies.
    var policy: PluginTrust { allowInsecure ? .allowInsecure : .strict }
}
