/// One concern of the application lifecycle; a plugin takes part in any subset.
///
/// Each concern is one small protocol in Swift and one small vtable in the C ABI.
public enum PluginConcern: String, Sendable, Codable, CaseIterable, Comparable {
    case launch
    case openURL = "open-url"
    case userActivity = "user-activity"
    case remoteNotifications = "remote-notifications"
    case memory
    case protectedData = "protected-data"
    case appState = "app-state"
    case termination

    public static func < (lhs: PluginConcern, rhs: PluginConcern) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}
