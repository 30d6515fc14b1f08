/// Takes part in remote notifications. Registration results are broadcast; a
/// notification goes to every plugin and the answers are reduced
/// (new data > no data > failed) once all answered or the deadline passed.
///
/// Implement one of the two forms of each event: the host calls the borrowed one, whose default
/// copies the bytes or text into an array or a `String` for the other (see ``ApplicationPlugin``, "Text").
public protocol RemoteNotificationPlugin: ApplicationPlugin {
    /// The device registered; `deviceToken` is opaque bytes, borrowed for the call. Default: the array form.
    func didRegisterForRemoteNotifications(deviceToken: Span<UInt8>)
    /// Registration failed for `error`, borrowed for the call. Default: the `String` form.
    func didFailToRegisterForRemoteNotifications(error: TextSpan)
    /// A notification arrived with `userInfo` (JSON object text, borrowed for the call); call
    /// `completion` exactly once, now or later, on any thread. Default: the `String` form.
    func didReceiveRemoteNotification(userInfo: TextSpan, completion: FetchCompletion)
    /// The device registered; `deviceToken` is opaque bytes. Default: nothing.
    func didRegisterForRemoteNotifications(deviceToken: [UInt8])
    /// Registration failed for `error`. Default: nothing.
    func didFailToRegisterForRemoteNotifications(error: String)
    /// A notification arrived; call `completion` exactly once, now or later, on any thread.
    /// Default: answers ``FetchResult/noData`` at once.
    func didReceiveRemoteNotification(userInfo: String, completion: FetchCompletion)
}

extension RemoteNotificationPlugin {
    /// The default: the array form, with the bytes copied.
    public func didRegisterForRemoteNotifications(deviceToken: Span<UInt8>) {
        didRegisterForRemoteNotifications(deviceToken: deviceToken.withUnsafeBufferPointer { Array($0) })
    }
    /// The default: the `String` form, with the text copied.
    public func didFailToRegisterForRemoteNotifications(error: TextSpan) {
        didFailToRegisterForRemoteNotifications(error: String(copying: error))
    }
    /// The default: the `String` form, with the text copied.
    public func didReceiveRemoteNotification(userInfo: TextSpan, completion: FetchCompletion) {
        didReceiveRemoteNotification(userInfo: String(copying: userInfo), completion: completion)
    }
    /// The default: see the requirement.
    public func didRegisterForRemoteNotifications(deviceToken: [UInt8]) {}
    /// The default: see the requirement.
    public func didFailToRegisterForRemoteNotifications(error: String) {}
    /// The default: see the requirement.
    public func didReceiveRemoteNotification(userInfo: String, completion: FetchCompletion) {
        completion(.noData)
    }
}
