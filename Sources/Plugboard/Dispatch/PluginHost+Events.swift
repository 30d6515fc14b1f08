/// The lifecycle events as typed calls: each is ``dispatch(_:)`` of its ``LifecycleEvent``.
extension PluginHost {
    /// Call all, AND; true with no plugins. `options` is JSON object text.
    @discardableResult
    public func willFinishLaunching(options: String = "{}") -> EventReport {
        dispatch(.willFinishLaunching(options: EventText(options)))
    }

    /// Call all, AND; true with no plugins. `options` is JSON object text.
    @discardableResult
    public func didFinishLaunching(options: String = "{}") -> EventReport {
        dispatch(.didFinishLaunching(options: EventText(options)))
    }

    /// Priority order, first true handles it; false with no plugins.
    @discardableResult
    public func open(url: String, options: String = "{}") -> EventReport {
        dispatch(.openURL(url: EventText(url), options: EventText(options)))
    }

    /// Priority order, first true handles it; false with no plugins.
    @discardableResult
    public func continueUserActivity(type: String, userInfo: String = "{}") -> EventReport {
        dispatch(.continueUserActivity(type: EventText(type), userInfo: EventText(userInfo)))
    }

    /// Broadcast the device token.
    @discardableResult
    public func didRegisterForRemoteNotifications(deviceToken: [UInt8]) -> EventReport {
        dispatch(.registerToken(deviceToken))
    }

    /// Broadcast the registration failure.
    @discardableResult
    public func didFailToRegisterForRemoteNotifications(error: String) -> EventReport {
        dispatch(.registerFailed(error: EventText(error)))
    }

    /// Broadcast, priority order.
    @discardableResult
    public func didReceiveMemoryWarning() -> EventReport { dispatch(.memoryWarning) }

    /// Broadcast, priority order.
    @discardableResult
    public func protectedDataWillBecomeUnavailable() -> EventReport { dispatch(.protectedDataWillBecomeUnavailable) }

    /// Broadcast, priority order.
    @discardableResult
    public func protectedDataDidBecomeAvailable() -> EventReport { dispatch(.protectedDataDidBecomeAvailable) }

    /// Broadcast, priority order.
    @discardableResult
    public func didBecomeActive() -> EventReport { dispatch(.didBecomeActive) }

    /// Broadcast, priority order.
    @discardableResult
    public func willResignActive() -> EventReport { dispatch(.willResignActive) }

    /// Broadcast, priority order.
    @discardableResult
    public func didEnterBackground() -> EventReport { dispatch(.didEnterBackground) }

    /// Broadcast, priority order.
    @discardableResult
    public func willEnterForeground() -> EventReport { dispatch(.willEnterForeground) }

    /// Broadcast in reverse priority order: last in, first out.
    @discardableResult
    public func willTerminate() -> EventReport { dispatch(.willTerminate) }
}
