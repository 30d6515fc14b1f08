/// Takes part in remote notifications. Registration results are broadcast; a
/// notification goes to every plugin and the answers are reduced
/// (new data > no data > failed) once all answered or the deadline passed.
public protocol RemoteNotificationPlugin: ApplicationPlugin {
    /// The device registered; `deviceToken` is opaque bytes. Default: nothing.
    func didRegisterForRemoteNotifications(deviceToken: [UInt8])
    /// Registration failed for `error`. Default: nothing.
    func didFailToRegisterForRemoteNotifications(error: String)
    /// A notification arrived; call `completion` exactly once, now or later, on any thread.
    /// Default: answers ``FetchResult/noData`` at once.
    func didReceiveRemoteNotification(userInfo: String, completion: FetchCompletion)
}

extension RemoteNotificationPlugin {
    /// The default: see the requirement.
    public func didRegisterForRemoteNotifications(deviceToken: [UInt8]) {}
    /// The default: see the requirement.
    public func didFailToRegisterForRemoteNotifications(error: String) {}
    /// The default: see the requirement.
    public func didReceiveRemoteNotification(userInfo: String, completion: FetchCompletion) {
        completion(.noData)
    }
}
