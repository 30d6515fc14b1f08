/// Saved state in the embedding API (``SavedStateKeeper``): each plugin of the saved-state concern
/// gets back, before will-finish-launching, the state it gave after the previous run's will-terminate.
extension PluginHost {
    /// Gives each plugin the state `store` holds for its id. Call before ``willFinishLaunching(options:)``.
    /// A missing file means no state, quietly; an unusable one (unreadable, corrupt, truncated,
    /// foreign) means no state and a warning naming the file and the cause; a plugin whose
    /// `restore_state` is NULL is not asked. The host keeps `store`: the plugins of a worker restarted
    /// later in the run (`restarts`) get their saved state back from it before their next event.
    public func restoreState(from store: SavedStateStore) -> SavedStateReport {
        savedState.restore(from: store)
    }

    /// Asks each plugin for its state and writes it to `store`, atomically, with the plugin's
    /// version and a checksum. Call after ``willTerminate()``. A plugin that saves nothing, breaks
    /// the rules (NULL data with a size, a state over 16 MiB), crashes or hangs keeps its previous
    /// file, with a warning; a plugin whose worker failed earlier is not asked (its file stays);
    /// one whose worker was restarted got its state back then (``restoreState(from:)``) and is asked.
    public func saveState(to store: SavedStateStore) -> SavedStateReport {
        savedState.save(to: store)
    }
}
