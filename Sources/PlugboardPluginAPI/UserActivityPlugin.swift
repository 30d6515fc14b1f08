/// Takes part in continuing user activities. Policy: priority order, the first
/// `true` handles it.
///
/// Implement one of the two forms: the host calls the borrowed one, whose default copies the text
/// into `String`s for the other (see ``ApplicationPlugin``, "Text").
public protocol UserActivityPlugin: ApplicationPlugin {
    /// Return true if this plugin continued the activity of `type`; `userInfo` is JSON object text.
    /// Both are borrowed for the call. Default: the `String` form.
    func continueUserActivity(type: TextSpan, userInfo: TextSpan) -> Bool
    /// Return true if this plugin continued the activity; `userInfo` is JSON object text. Default: false.
    func continueUserActivity(type: String, userInfo: String) -> Bool
}

extension UserActivityPlugin {
    /// The default: the `String` form, with the text copied.
    public func continueUserActivity(type: TextSpan, userInfo: TextSpan) -> Bool {
        continueUserActivity(type: String(copying: type), userInfo: String(copying: userInfo))
    }
    /// The default: see the requirement.
    public func continueUserActivity(type: String, userInfo: String) -> Bool { false }
}
