/// Dispatching lifecycle events (``EventDispatcher``); the typed calls are each ``dispatch(_:)``
/// of its ``LifecycleEvent``.
extension PluginHost {
    /// Dispatches `event` to the plugins of its concern as its policy says, reduces their
    /// answers and reports them; then delivers the notifications posted meanwhile. For
    /// broadcasts, the calls' answers are ignored. A participant whose worker fails counts as
    /// if it had not answered (no veto, not handled) and is reported in the report's
    /// ``EventReport/failures``. A remote notification waits for its deadline at most.
    /// Always inlined, so that each typed method (``willTerminate()``…) is the dispatch loop for
    /// its one event, with the event's calls reduced to its slot.
    @discardableResult @inline(__always)
    public func dispatch(_ event: LifecycleEvent) -> EventReport {
        dispatcher.dispatch(event)
    }

    /// Delivers a notification to every plugin; `completion` receives the reduced
    /// answer (new data > no data > failed; no data with no plugins) exactly once,
    /// when all answered or `deadline` after the call, on whichever thread that happens
    /// (with ``PluginDecorator/threadConfinement``, on the dispatch thread, when
    /// ``deliverConfined()`` or a later event delivers the answers).
    /// Notifications posted meanwhile are delivered at the next event or ``deliverNotifications()``.
    public func didReceiveRemoteNotification(
        userInfo: String, deadline: Duration = .seconds(30),
        completion: @escaping @Sendable (EventReport) -> Void
    ) {
        _ = dispatcher.remoteNotification(userInfo: userInfo, deadline: deadline, completion: completion)
    }

    /// Delivers a notification and waits on this thread for the reduced answer
    /// (at most `deadline`). A plugin that answers on this same thread later
    /// than its callback cannot answer in time. With ``PluginDecorator/threadConfinement``
    /// the wait delivers what plugin threads send as it arrives, on this thread. Then delivers
    /// the notifications posted meanwhile.
    @discardableResult
    public func didReceiveRemoteNotification(userInfo: String, deadline: Duration = .seconds(30)) -> EventReport {
        dispatcher.remoteNotification(userInfo: userInfo, deadline: deadline)
    }

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
