/// The wire number of each of the 15 lifecycle events and the 2 saved-state calls, in a `call`.
///
/// Wire format: the values never change; a new event takes the next number
/// in a new protocol minor.
public enum EventCode: UInt8, Sendable, CaseIterable {
    /// `will_finish_launching`.
    case willFinishLaunching = 1
    /// `did_finish_launching`.
    case didFinishLaunching = 2
    /// `open_url`.
    case openURL = 3
    /// `continue_user_activity`.
    case continueUserActivity = 4
    /// `did_receive_remote_notification`.
    case remoteNotification = 5
    /// `did_register` (remote notifications).
    case registerToken = 6
    /// `did_fail_to_register` (remote notifications).
    case registerFailed = 7
    /// `did_receive_memory_warning`.
    case memoryWarning = 8
    /// `will_become_unavailable` (protected data).
    case protectedDataWillBecomeUnavailable = 9
    /// `did_become_available` (protected data).
    case protectedDataDidBecomeAvailable = 10
    /// `did_become_active`.
    case didBecomeActive = 11
    /// `will_resign_active`.
    case willResignActive = 12
    /// `did_enter_background`.
    case didEnterBackground = 13
    /// `will_enter_foreground`.
    case willEnterForeground = 14
    /// `will_terminate`.
    case willTerminate = 15
    /// `save_state` (since protocol 1.4).
    case saveState = 16
    /// `restore_state` (since protocol 1.4).
    case restoreState = 17

    /// The protocol minor (of major 1) that introduced this event: the host sends it only
    /// to a worker whose minor is at least this.
    public var introducedInMinor: UInt16 {
        switch self {
        case .saveState, .restoreState: 4
        default: 0
        }
    }
}
