/// One concern of the application lifecycle; a plugin takes part in any subset.
///
/// Each concern is one small protocol in Swift and one small vtable in the C ABI.
public enum PluginConcern: String, Sendable, Codable, CaseIterable, Comparable {
    /// Will and did finish launching.
    case launch
    /// Opening URLs.
    case openURL = "open-url"
    /// Continuing user activities.
    case userActivity = "user-activity"
    /// Remote notification registration and delivery.
    case remoteNotifications = "remote-notifications"
    /// Memory warnings.
    case memory
    /// Protected data locking and unlocking.
    case protectedData = "protected-data"
    /// Active, inactive, background and foreground changes.
    case appState = "app-state"
    /// Termination.
    case termination
    /// Saving state at termination and restoring it at the next launch (since ABI 1.3).
    case savedState = "saved-state"

    /// Declaration order.
    public static func < (lhs: PluginConcern, rhs: PluginConcern) -> Bool {
        lhs.position < rhs.position
    }

    /// Hashes the concern's position, not its raw text: a worker's plugins' concerns are put in a set
    /// when they register.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(position)
    }

    /// The concern's place in declaration order.
    private var position: Int {
        switch self {
        case .launch: 0
        case .openURL: 1
        case .userActivity: 2
        case .remoteNotifications: 3
        case .memory: 4
        case .protectedData: 5
        case .appState: 6
        case .termination: 7
        case .savedState: 8
        }
    }

    /// Whether `plugin` conforms to this concern's protocol.
    package func isAdopted(by plugin: any ApplicationPlugin) -> Bool {
        switch self {
        case .launch: plugin is any LaunchPlugin
        case .openURL: plugin is any OpenURLPlugin
        case .userActivity: plugin is any UserActivityPlugin
        case .remoteNotifications: plugin is any RemoteNotificationPlugin
        case .memory: plugin is any MemoryWarningPlugin
        case .protectedData: plugin is any ProtectedDataPlugin
        case .appState: plugin is any AppStatePlugin
        case .termination: plugin is any TerminationPlugin
        case .savedState: plugin is any SavedStatePlugin
        }
    }
}
