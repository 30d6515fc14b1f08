/// Takes part in application state changes (broadcast, priority order).
public protocol AppStatePlugin: ApplicationPlugin {
    /// The application became active. Default: nothing.
    func didBecomeActive()
    /// The application is about to become inactive. Default: nothing.
    func willResignActive()
    /// The application moved to the background. Default: nothing.
    func didEnterBackground()
    /// The application is about to return to the foreground. Default: nothing.
    func willEnterForeground()
}

extension AppStatePlugin {
    /// The default: see the requirement.
    public func didBecomeActive() {}
    /// The default: see the requirement.
    public func willResignActive() {}
    /// The default: see the requirement.
    public func didEnterBackground() {}
    /// The default: see the requirement.
    public func willEnterForeground() {}
}
