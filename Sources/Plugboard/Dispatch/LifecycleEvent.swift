/// Every application lifecycle event the host dispatches, by its report and script name.
public enum LifecycleEvent: String, Sendable, Codable, CaseIterable {
    /// The application is about to finish launching (launch options as JSON).
    case willFinishLaunching = "will-finish-launching"
    /// The application finished launching.
    case didFinishLaunching = "did-finish-launching"
    /// The application is asked to open a URL.
    case openURL = "open-url"
    /// The application is asked to continue a user activity.
    case continueUserActivity = "continue-user-activity"
    /// A remote notification arrived.
    case remoteNotification = "remote-notification"
    /// The device registered for remote notifications.
    case registerToken = "register-token"
    /// Registering for remote notifications failed.
    case registerFailed = "register-failed"
    /// The system is short of memory.
    case memoryWarning = "memory-warning"
    /// Protected files are about to lock.
    case protectedDataWillBecomeUnavailable = "protected-data-will-become-unavailable"
    /// Protected files are readable again.
    case protectedDataDidBecomeAvailable = "protected-data-did-become-available"
    /// The application became active.
    case didBecomeActive = "did-become-active"
    /// The application is about to become inactive.
    case willResignActive = "will-resign-active"
    /// The application moved to the background.
    case didEnterBackground = "did-enter-background"
    /// The application is about to return to the foreground.
    case willEnterForeground = "will-enter-foreground"
    /// The application is about to terminate.
    case willTerminate = "will-terminate"

    /// The concern whose plugins receive this event.
    public var concern: PluginConcern {
        switch self {
        case .willFinishLaunching, .didFinishLaunching: .launch
        case .openURL: .openURL
        case .continueUserActivity: .userActivity
        case .remoteNotification, .registerToken, .registerFailed: .remoteNotifications
        case .memoryWarning: .memory
        case .protectedDataWillBecomeUnavailable, .protectedDataDidBecomeAvailable: .protectedData
        case .didBecomeActive, .willResignActive, .didEnterBackground, .willEnterForeground: .appState
        case .willTerminate: .termination
        }
    }

    /// How the host calls plugins for this event and reduces their answers.
    public var policy: DispatchPolicy {
        switch self {
        case .willFinishLaunching, .didFinishLaunching: .callAllAnd
        case .openURL, .continueUserActivity: .firstTrueWins
        case .remoteNotification: .callAllStrongestFetch
        case .willTerminate: .broadcastReverse
        default: .broadcast
        }
    }

    /// The C slot this event calls, as fault and timeout messages name it.
    var callbackName: StaticString {
        switch self {
        case .willFinishLaunching: "will_finish_launching"
        case .didFinishLaunching: "did_finish_launching"
        case .openURL: "open_url"
        case .continueUserActivity: "continue_user_activity"
        case .remoteNotification: "did_receive_remote_notification"
        case .registerToken: "did_register"
        case .registerFailed: "did_fail_to_register"
        case .memoryWarning: "did_receive_memory_warning"
        case .protectedDataWillBecomeUnavailable: "will_become_unavailable"
        case .protectedDataDidBecomeAvailable: "did_become_available"
        case .didBecomeActive: "did_become_active"
        case .willResignActive: "will_resign_active"
        case .didEnterBackground: "did_enter_background"
        case .willEnterForeground: "will_enter_foreground"
        case .willTerminate: "will_terminate"
        }
    }
}
