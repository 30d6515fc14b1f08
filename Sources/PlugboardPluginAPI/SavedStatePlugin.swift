/// Keeps state across runs (the saved-state concern, `events/saved-state.h`): the host asks
/// for it after will-terminate and gives it back before will-finish-launching of the next run.
public protocol SavedStatePlugin: ApplicationPlugin {
    /// The state to keep, or nil to save nothing this time (the previous state is kept).
    /// At most 16 MiB (`PB_SAVED_STATE_MAX_SIZE`): a larger state is refused with a warning.
    func saveState() -> [UInt8]?
    /// The state a previous run saved, and the plugin version that saved it (to migrate).
    /// Not called when there is no valid state. Returning false refuses it (a warning is reported).
    func restoreState(_ state: [UInt8], savedVersion: String) -> Bool
}
