/// The lifecycle events with an immediate answer, each with its policy from
/// the table in DESIGN.md.
extension PluginHost {
    /// Call all, AND; true with no plugins. `options` is JSON object text.
    @discardableResult
    public func willFinishLaunching(options: String = "{}") -> EventReport {
        callAllAnd(.willFinishLaunching, prepared.launch) { $0.willFinishLaunching(options: options) }
    }

    /// Call all, AND; true with no plugins. `options` is JSON object text.
    @discardableResult
    public func didFinishLaunching(options: String = "{}") -> EventReport {
        callAllAnd(.didFinishLaunching, prepared.launch) { $0.didFinishLaunching(options: options) }
    }

    /// Priority order, first true handles it; false with no plugins.
    @discardableResult
    public func open(url: String, options: String = "{}") -> EventReport {
        firstTrueWins(.openURL, prepared.openURL) { $0.open(url: url, options: options) }
    }

    /// Priority order, first true handles it; false with no plugins.
    @discardableResult
    public func continueUserActivity(type: String, userInfo: String = "{}") -> EventReport {
        firstTrueWins(.continueUserActivity, prepared.userActivity) {
            $0.continueUserActivity(type: type, userInfo: userInfo)
        }
    }

    /// Broadcast the device token.
    @discardableResult
    public func didRegisterForRemoteNotifications(deviceToken: [UInt8]) -> EventReport {
        broadcast(.registerToken, prepared.remoteNotifications) {
            $0.didRegisterForRemoteNotifications(deviceToken: deviceToken)
        }
    }

    /// Broadcast the registration failure.
    @discardableResult
    public func didFailToRegisterForRemoteNotifications(error: String) -> EventReport {
        broadcast(.registerFailed, prepared.remoteNotifications) {
            $0.didFailToRegisterForRemoteNotifications(error: error)
        }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func didReceiveMemoryWarning() -> EventReport {
        broadcast(.memoryWarning, prepared.memory) { $0.didReceiveMemoryWarning() }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func protectedDataWillBecomeUnavailable() -> EventReport {
        broadcast(.protectedDataWillBecomeUnavailable, prepared.protectedData) {
            $0.protectedDataWillBecomeUnavailable()
        }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func protectedDataDidBecomeAvailable() -> EventReport {
        broadcast(.protectedDataDidBecomeAvailable, prepared.protectedData) {
            $0.protectedDataDidBecomeAvailable()
        }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func didBecomeActive() -> EventReport {
        broadcast(.didBecomeActive, prepared.appState) { $0.didBecomeActive() }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func willResignActive() -> EventReport {
        broadcast(.willResignActive, prepared.appState) { $0.willResignActive() }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func didEnterBackground() -> EventReport {
        broadcast(.didEnterBackground, prepared.appState) { $0.didEnterBackground() }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func willEnterForeground() -> EventReport {
        broadcast(.willEnterForeground, prepared.appState) { $0.willEnterForeground() }
    }

    /// Broadcast in reverse priority order: last in, first out.
    @discardableResult
    public func willTerminate() -> EventReport {
        broadcast(.willTerminate, prepared.termination, reversed: true) { $0.willTerminate() }
    }
}
