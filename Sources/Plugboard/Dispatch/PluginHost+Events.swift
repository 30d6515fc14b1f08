/// The lifecycle events with an immediate answer, each with its policy from
/// the table in DESIGN.md.
extension PluginHost {
    /// Call all, AND; true with no plugins. `options` is JSON object text.
    @discardableResult
    public func willFinishLaunching(options: String = "{}") -> EventReport {
        callAllAnd(.willFinishLaunching, registry.participants().launch) { $0.willFinishLaunching(options: options) }
    }

    /// Call all, AND; true with no plugins. `options` is JSON object text.
    @discardableResult
    public func didFinishLaunching(options: String = "{}") -> EventReport {
        callAllAnd(.didFinishLaunching, registry.participants().launch) { $0.didFinishLaunching(options: options) }
    }

    /// Priority order, first true handles it; false with no plugins.
    @discardableResult
    public func open(url: String, options: String = "{}") -> EventReport {
        firstTrueWins(.openURL, registry.participants().openURL) { $0.open(url: url, options: options) }
    }

    /// Priority order, first true handles it; false with no plugins.
    @discardableResult
    public func continueUserActivity(type: String, userInfo: String = "{}") -> EventReport {
        firstTrueWins(.continueUserActivity, registry.participants().userActivity) {
            $0.continueUserActivity(type: type, userInfo: userInfo)
        }
    }

    /// Broadcast the device token.
    @discardableResult
    public func didRegisterForRemoteNotifications(deviceToken: [UInt8]) -> EventReport {
        broadcast(.registerToken, registry.participants().remoteNotifications) {
            $0.didRegisterForRemoteNotifications(deviceToken: deviceToken)
        }
    }

    /// Broadcast the registration failure.
    @discardableResult
    public func didFailToRegisterForRemoteNotifications(error: String) -> EventReport {
        broadcast(.registerFailed, registry.participants().remoteNotifications) {
            $0.didFailToRegisterForRemoteNotifications(error: error)
        }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func didReceiveMemoryWarning() -> EventReport {
        broadcast(.memoryWarning, registry.participants().memory) { $0.didReceiveMemoryWarning() }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func protectedDataWillBecomeUnavailable() -> EventReport {
        broadcast(.protectedDataWillBecomeUnavailable, registry.participants().protectedData) {
            $0.protectedDataWillBecomeUnavailable()
        }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func protectedDataDidBecomeAvailable() -> EventReport {
        broadcast(.protectedDataDidBecomeAvailable, registry.participants().protectedData) {
            $0.protectedDataDidBecomeAvailable()
        }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func didBecomeActive() -> EventReport {
        broadcast(.didBecomeActive, registry.participants().appState) { $0.didBecomeActive() }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func willResignActive() -> EventReport {
        broadcast(.willResignActive, registry.participants().appState) { $0.willResignActive() }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func didEnterBackground() -> EventReport {
        broadcast(.didEnterBackground, registry.participants().appState) { $0.didEnterBackground() }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func willEnterForeground() -> EventReport {
        broadcast(.willEnterForeground, registry.participants().appState) { $0.willEnterForeground() }
    }

    /// Broadcast in reverse priority order: last in, first out.
    @discardableResult
    public func willTerminate() -> EventReport {
        broadcast(.willTerminate, registry.participants().termination.reversed()) { $0.willTerminate() }
    }
}
