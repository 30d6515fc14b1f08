/// Delivering a scripted event through its policy.
extension PluginHost {
    /// Dispatches `event` and returns its report; a notification waits for its deadline at most.
    @discardableResult
    public func deliver(_ event: ScriptedEvent) -> EventReport {
        switch event {
        case .openURL(let url, let options): open(url: url, options: options)
        case .continueUserActivity(let type, let userInfo): continueUserActivity(type: type, userInfo: userInfo)
        case .remoteNotification(let userInfo, let deadline): didReceiveRemoteNotification(userInfo: userInfo, deadline: deadline)
        case .registerToken(let token): didRegisterForRemoteNotifications(deviceToken: token)
        case .registerFailed(let error): didFailToRegisterForRemoteNotifications(error: error)
        case .memoryWarning: didReceiveMemoryWarning()
        case .protectedDataWillBecomeUnavailable: protectedDataWillBecomeUnavailable()
        case .protectedDataDidBecomeAvailable: protectedDataDidBecomeAvailable()
        case .didBecomeActive: didBecomeActive()
        case .willResignActive: willResignActive()
        case .didEnterBackground: didEnterBackground()
        case .willEnterForeground: willEnterForeground()
        case .willTerminate: willTerminate()
        }
    }
}
