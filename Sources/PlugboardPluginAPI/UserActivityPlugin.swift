/// Takes part in continuing user activities. Policy: priority order, the first
/// `true` handles it.
public protocol UserActivityPlugin: ApplicationPlugin {
    /// Return true if this plugin continued the activity; `userInfo` is JSON object text. Default: false.
    func continueUserActivity(type: String, userInfo: String) -> Bool
}

extension UserActivityPlugin {
    /// The default: see the requirement.
    public func continueUserActivity(type: String, userInfo: String) -> Bool { false }
}
