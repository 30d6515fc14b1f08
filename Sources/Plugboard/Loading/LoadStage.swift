/// Where loading a library stopped; each stage names one step of the loading rules.
public enum LoadStage: String, Sendable, Codable, CaseIterable {
    /// Finding the file: the directory or the file could not be listed or read.
    case scan
    /// The trust rule: the file and its directory are owned by root or the
    /// current user and writable by neither group nor others (see ``PluginTrust``).
    case trust
    /// Reading the ELF header and `dlopen`.
    case open
    /// Finding `plugboard_entry` and reading the record it returns.
    case entry
    /// ABI version and struct-size negotiation.
    case version
    /// The library's `init`.
    case `init`
    /// `register_plugins` and each plugin it adds.
    case register
    /// The worker process that loads the library out of the host's process ended, or did not answer in time.
    case worker
}
