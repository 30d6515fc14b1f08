/// Every application lifecycle event the host dispatches, by its report and script name.
public enum LifecycleEvent: String, Sendable, Codable, CaseIterable {
    case willFinishLaunching = "will-finish-launching"
    case didFinishLaunching = "did-finish-launching"
    case openURL = "open-url"
    case continueUserActivity = "continue-user-activity"
    case remoteNotification = "remote-notification"
    case registerToken = "register-token"
    case registerFailed = "register-failed"
    case memoryWarning = "memory-warning"
    case protectedDataWillBecomeUnavailable = "protected-data-will-become-unavailable"
    case protectedDataDidBecomeAvailable = "protected-data-did-become-available"
    case didBecomeActive = "did-become-active"
    case willResignActive = "will-resign-active"
    case didEnterBackground = "did-enter-background"
    case willEnterForeground = "will-enter-foreground"
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
}
