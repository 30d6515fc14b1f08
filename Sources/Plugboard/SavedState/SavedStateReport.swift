/// What restoring or saving the plugins' states did, plugin by plugin, in dispatch order (the plugins
/// the policy denies saved state last).
public struct SavedStateReport: Sendable, Codable {
    /// Which way the states went.
    public enum Operation: String, Sendable, Codable {
        /// From the state files to the plugins, before will-finish-launching.
        case restore
        /// From the plugins to the state files, after will-terminate.
        case save
    }

    /// What became of one plugin's state.
    public enum Outcome: String, Sendable, Codable {
        /// The plugin took back its saved state.
        case restored
        /// The plugin starts without state: there was none, or none that could be used (see the warning).
        case noState = "no-state"
        /// The plugin refused its saved state (a warning says how).
        case refused
        /// The plugin's state was written.
        case saved
        /// Nothing was written: the previous file, if any, is kept (a warning says why).
        case kept
        /// The host's policy denies the plugin saved state: not asked, its file left as it is.
        case denied
    }

    /// One plugin's line of the report.
    public struct Entry: Sendable, Codable {
        /// The plugin.
        public let plugin: PluginID
        /// What became of its state.
        public let outcome: Outcome
        /// The size of the state restored or saved, in bytes.
        public let bytes: Int?
        /// Why the outcome is not the usual one, naming the file or the call and the cause.
        public let warning: String?
    }

    /// Which way the states went.
    public let operation: Operation
    /// One entry per plugin of the saved-state concern (a plugin without a state file, and one whose
    /// slot for this operation is NULL, has none).
    public let entries: [Entry]
}
