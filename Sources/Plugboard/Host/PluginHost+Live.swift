/// Plugins that join, reload and leave a running host (``LiveLibraries``), applied between events
/// on the dispatch thread.
///
/// A library joins as at start (trust rule, preflight, its worker, the policy and the sandbox); its
/// plugins get their saved state and, once the application launched, will-finish-launching,
/// did-finish-launching and the event of the state the application is in (a veto then is reported,
/// and does not undo the launch). A changed library's new version is loaded in a new worker beside
/// the old one, gets the old plugins' states (same ids) and the same catch-up events; then the host
/// switches to it and the old worker gets `deinit` and ends. Anything that fails before the switch
/// leaves the old version serving. A library in the host's process can join, but not be replaced or
/// removed: libraries are never unloaded.
extension PluginHost {
    /// Applies what changed in the folders of `searchPath` since the host last looked: new files join,
    /// changed ones (another inode, size, modification time, owner or permissions) are reloaded, removed ones (or a
    /// name that now leads to no regular file) leave. A file
    /// still open for writing waits for a later call; a file that failed waits until it changes. Call it
    /// on a signal (SIGHUP), or when a ``PluginFolderWatcher`` saw changes and the folders stayed quiet.
    public func applyChanges(in searchPath: PluginSearchPath, trust: PluginTrust = .strict) -> [LibraryChange] {
        live.applyChanges(in: searchPath, trust: trust)
    }

    /// Loads the library at `path` into the running host: its plugins join (``LibraryChange/Kind/joined``),
    /// or nothing of it takes part (``LibraryChange/Kind/joinFailed``). An id a serving plugin has is refused.
    public func join(libraryAt path: String, trust: PluginTrust = .strict) -> LibraryChange {
        live.join(path, trust: trust)
    }

    /// Replaces the library at `path` with the file there now (``LibraryChange/Kind/reloaded``), in a
    /// worker of the executable the old version's ran, or keeps the old version serving and says why
    /// (``LibraryChange/Kind/reloadFailed``); a library none of whose plugins serves joins instead.
    /// In process: ``LibraryChange/Kind/restartNeeded``.
    public func reload(libraryAt path: String, trust: PluginTrust = .strict) -> LibraryChange {
        live.reload(path, trust: trust, because: "was to be reloaded")
    }

    /// Has the plugins of the library at `path` save their states (to the store of
    /// ``restoreState(from:)``, if any), get `deinit` and leave (``LibraryChange/Kind/left``); nil when
    /// none of its plugins serves. In process: ``LibraryChange/Kind/restartNeeded``.
    public func unload(libraryAt path: String) -> LibraryChange? {
        live.leave(path, because: "was to leave")
    }
}
