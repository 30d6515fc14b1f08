/// Loading libraries into a host (``LibraryLoader``), following the loading rules: stable order,
/// each file once, trusted files only, one bad file never stops the others, and an id two
/// libraries claim belongs to neither.
extension PluginHost {
    /// Scans every directory of `searchPath` and loads each candidate file.
    /// Returns one report per file (and one per directory that could not be
    /// scanned or failed the trust rule, whose files are then not tried).
    /// A plugin id claimed by two libraries is refused for both: their reports say so.
    /// `trust` decides whether a file or directory another user could change is
    /// refused (``PluginTrust/strict``, the default) or loaded with a report warning.
    /// The libraries to load in this process are all opened (their constructors run, then their
    /// `plugboard_entry`) before the first one's `init`; then each runs its other stages in turn,
    /// in the same order.
    public func loadPlugins(from searchPath: PluginSearchPath, trust: PluginTrust = .strict) -> [LoadReport] {
        loader.loadPlugins(from: searchPath, trust: trust)
    }

    /// Loads the library at `path` and registers its plugins, if the file and its folder pass
    /// the trust rule (a sticky folder such as `/tmp` may be writable by others, as only a
    /// file's owner may replace the file there), or `trust` is ``PluginTrust/allowInsecure``: in a worker or in
    /// this process as `placement` says, the host's ``isolation`` when nil. One host may
    /// hold libraries of both placements; events, function calls and `invoke` reach
    /// their plugins the same way.
    ///
    /// Its plugins get no event the host sent before; ``join(libraryAt:trust:)`` catches a library
    /// up on the launch and the application's state.
    ///
    /// When a later library claims one of its plugin ids, that plugin is
    /// withdrawn (``plugins`` shows it; ``loadPlugins(from:trust:)`` amends the
    /// reports), and a library left with no plugin is released.
    public func loadLibrary(at path: String, trust: PluginTrust = .strict, placement: PluginIsolation? = nil) -> LoadReport {
        loader.loadNamedLibrary(at: path, trust: trust, placement: placement)
    }

    /// How the worker of the library at `path` ended while it loaded the library or served a call, if it
    /// did: the cause behind a failure's sentence (a signal, an exit, a hang, a broken channel).
    public func workerEnding(of path: String) -> WorkerEnding? {
        loader.workerEnding(of: path)
    }
}
