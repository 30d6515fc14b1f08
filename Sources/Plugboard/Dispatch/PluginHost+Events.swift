import PlugboardWorkerProtocol

/// The lifecycle events with an immediate answer; each converts its arguments
/// to C once and dispatches by its ``LifecycleEvent/policy``.
extension PluginHost {
    /// Call all, AND; true with no plugins. `options` is JSON object text.
    @discardableResult
    public func willFinishLaunching(options: String = "{}") -> EventReport {
        let roster = prepared.launch
        return options.withCString { text in
            let length = options.utf8.count
            return dispatch(.willFinishLaunching, roster) { table, ctx in
                table.will_finish_launching.map { $0(ctx, text, length) } ?? true
            } swift: { $0.willFinishLaunching(options: options) } remote: { .willFinishLaunching(optionsJSON: Array(options.utf8)) }
        }
    }

    /// Call all, AND; true with no plugins. `options` is JSON object text.
    @discardableResult
    public func didFinishLaunching(options: String = "{}") -> EventReport {
        let roster = prepared.launch
        return options.withCString { text in
            let length = options.utf8.count
            return dispatch(.didFinishLaunching, roster) { table, ctx in
                table.did_finish_launching.map { $0(ctx, text, length) } ?? true
            } swift: { $0.didFinishLaunching(options: options) } remote: { .didFinishLaunching(optionsJSON: Array(options.utf8)) }
        }
    }

    /// Priority order, first true handles it; false with no plugins.
    @discardableResult
    public func open(url: String, options: String = "{}") -> EventReport {
        let roster = prepared.openURL
        return url.withCString { url8 in
            options.withCString { options8 in
                let (urlLength, optionsLength) = (url.utf8.count, options.utf8.count)
                return dispatch(.openURL, roster) { table, ctx in
                    table.open_url.map { $0(ctx, url8, urlLength, options8, optionsLength) } ?? false
                } swift: { $0.open(url: url, options: options) } remote: { .openURL(url: Array(url.utf8), optionsJSON: Array(options.utf8)) }
            }
        }
    }

    /// Priority order, first true handles it; false with no plugins.
    @discardableResult
    public func continueUserActivity(type: String, userInfo: String = "{}") -> EventReport {
        let roster = prepared.userActivity
        return type.withCString { type8 in
            userInfo.withCString { userInfo8 in
                let (typeLength, userInfoLength) = (type.utf8.count, userInfo.utf8.count)
                return dispatch(.continueUserActivity, roster) { table, ctx in
                    table.continue_user_activity.map { $0(ctx, type8, typeLength, userInfo8, userInfoLength) } ?? false
                } swift: { $0.continueUserActivity(type: type, userInfo: userInfo) } remote: {
                    .continueUserActivity(activityType: Array(type.utf8), userInfoJSON: Array(userInfo.utf8))
                }
            }
        }
    }

    /// Broadcast the device token.
    @discardableResult
    public func didRegisterForRemoteNotifications(deviceToken: [UInt8]) -> EventReport {
        let roster = prepared.remoteNotifications
        return deviceToken.withUnsafeBufferPointer { token in
            dispatch(.registerToken, roster) { table, ctx in
                table.did_register?(ctx, token.baseAddress, token.count)
                return true
            } swift: { $0.didRegisterForRemoteNotifications(deviceToken: deviceToken); return true } remote: { .registerToken(token: deviceToken) }
        }
    }

    /// Broadcast the registration failure.
    @discardableResult
    public func didFailToRegisterForRemoteNotifications(error: String) -> EventReport {
        let roster = prepared.remoteNotifications
        return error.withCString { error8 in
            let length = error.utf8.count
            return dispatch(.registerFailed, roster) { table, ctx in
                table.did_fail_to_register?(ctx, error8, length)
                return true
            } swift: { $0.didFailToRegisterForRemoteNotifications(error: error); return true } remote: { .registerFailed(error: Array(error.utf8)) }
        }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func didReceiveMemoryWarning() -> EventReport {
        dispatch(.memoryWarning, prepared.memory) { table, ctx in
            table.did_receive_memory_warning?(ctx)
            return true
        } swift: { $0.didReceiveMemoryWarning(); return true } remote: { .memoryWarning }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func protectedDataWillBecomeUnavailable() -> EventReport {
        dispatch(.protectedDataWillBecomeUnavailable, prepared.protectedData) { table, ctx in
            table.will_become_unavailable?(ctx)
            return true
        } swift: { $0.protectedDataWillBecomeUnavailable(); return true } remote: { .protectedDataWillBecomeUnavailable }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func protectedDataDidBecomeAvailable() -> EventReport {
        dispatch(.protectedDataDidBecomeAvailable, prepared.protectedData) { table, ctx in
            table.did_become_available?(ctx)
            return true
        } swift: { $0.protectedDataDidBecomeAvailable(); return true } remote: { .protectedDataDidBecomeAvailable }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func didBecomeActive() -> EventReport {
        dispatch(.didBecomeActive, prepared.appState) { table, ctx in
            table.did_become_active?(ctx)
            return true
        } swift: { $0.didBecomeActive(); return true } remote: { .didBecomeActive }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func willResignActive() -> EventReport {
        dispatch(.willResignActive, prepared.appState) { table, ctx in
            table.will_resign_active?(ctx)
            return true
        } swift: { $0.willResignActive(); return true } remote: { .willResignActive }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func didEnterBackground() -> EventReport {
        dispatch(.didEnterBackground, prepared.appState) { table, ctx in
            table.did_enter_background?(ctx)
            return true
        } swift: { $0.didEnterBackground(); return true } remote: { .didEnterBackground }
    }

    /// Broadcast, priority order.
    @discardableResult
    public func willEnterForeground() -> EventReport {
        dispatch(.willEnterForeground, prepared.appState) { table, ctx in
            table.will_enter_foreground?(ctx)
            return true
        } swift: { $0.willEnterForeground(); return true } remote: { .willEnterForeground }
    }

    /// Broadcast in reverse priority order: last in, first out.
    @discardableResult
    public func willTerminate() -> EventReport {
        dispatch(.willTerminate, prepared.termination) { table, ctx in
            table.will_terminate?(ctx)
            return true
        } swift: { $0.willTerminate(); return true } remote: { .willTerminate }
    }
}
