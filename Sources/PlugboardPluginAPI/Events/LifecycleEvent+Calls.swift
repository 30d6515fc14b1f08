import CPlugboard

/// A C plugin's concern vtables as the host read them: each nil when the plugin does not take
/// part in the concern, and each read to the plugin's `struct_size` (missing slots NULL).
@usableFromInline
package struct PluginVtables: @unchecked Sendable {
    @usableFromInline package var launch: pb_launch_t?
    @usableFromInline package var openURL: pb_open_url_t?
    @usableFromInline package var userActivity: pb_user_activity_t?
    @usableFromInline package var remoteNotifications: pb_remote_notifications_t?
    @usableFromInline package var memory: pb_memory_t?
    @usableFromInline package var protectedData: pb_protected_data_t?
    @usableFromInline package var appState: pb_app_state_t?
    @usableFromInline package var termination: pb_termination_t?
    /// Saved state (since ABI 1.3).
    @usableFromInline package var savedState: pb_saved_state_t?

    package init(launch: pb_launch_t?, openURL: pb_open_url_t?, userActivity: pb_user_activity_t?,
                 remoteNotifications: pb_remote_notifications_t?, memory: pb_memory_t?, protectedData: pb_protected_data_t?,
                 appState: pb_app_state_t?, termination: pb_termination_t?, savedState: pb_saved_state_t?) {
        self.launch = launch
        self.openURL = openURL
        self.userActivity = userActivity
        self.remoteNotifications = remoteNotifications
        self.memory = memory
        self.protectedData = protectedData
        self.appState = appState
        self.termination = termination
        self.savedState = savedState
    }
}

extension PluginVtables {
    /// Calls `event`'s C slot in the vtable of its concern, with the plugin's `ctx` and `c` from
    /// ``LifecycleEvent/withCArguments(_:)``: as ``LifecycleEvent/callSlot(_:ctx:_:completion:)``
    /// does; nil also when the plugin does not take part in the concern.
    package func callSlot(_ event: LifecycleEvent, ctx: UnsafeMutableRawPointer?, _ c: CEventArguments,
                          completion: () -> UnsafePointer<pb_fetch_completion_t>?) -> Bool? {
        switch event.kind.concern {
        case .launch: launch.flatMap { event.callSlot($0, ctx: ctx, c, completion: completion) }
        case .openURL: openURL.flatMap { event.callSlot($0, ctx: ctx, c, completion: completion) }
        case .userActivity: userActivity.flatMap { event.callSlot($0, ctx: ctx, c, completion: completion) }
        case .remoteNotifications: remoteNotifications.flatMap { event.callSlot($0, ctx: ctx, c, completion: completion) }
        case .memory: memory.flatMap { event.callSlot($0, ctx: ctx, c, completion: completion) }
        case .protectedData: protectedData.flatMap { event.callSlot($0, ctx: ctx, c, completion: completion) }
        case .appState: appState.flatMap { event.callSlot($0, ctx: ctx, c, completion: completion) }
        case .termination: termination.flatMap { event.callSlot($0, ctx: ctx, c, completion: completion) }
        case .savedState: nil
        }
    }
}

/// An event's arguments as its C slot takes them, converted once per event: up to two texts
/// (NUL-terminated, with their byte counts) and a byte buffer; valid during one dispatch.
@usableFromInline
package struct CEventArguments {
    @usableFromInline var first: UnsafePointer<CChar>?
    @usableFromInline var firstCount = 0
    @usableFromInline var second: UnsafePointer<CChar>?
    @usableFromInline var secondCount = 0
    @usableFromInline var bytes: UnsafeBufferPointer<UInt8>?

    @inlinable init() {}
}

/// How each event reaches a plugin: its C slot (the in-process host and the worker call this,
/// with the same arguments) and its Swift protocol method.
extension LifecycleEvent {
    /// Runs `body` with the event's arguments converted to C, once for all the plugins it calls.
    @inlinable @inline(__always)
    package func withCArguments<Result>(_ body: (CEventArguments) throws -> Result) rethrows -> Result {
        var arguments = CEventArguments()
        switch self {
        case .willFinishLaunching(let text), .didFinishLaunching(let text), .registerFailed(let text),
             .remoteNotification(let text, _):
            return try text.withCText { text, count in
                arguments.first = text
                arguments.firstCount = count
                return try body(arguments)
            }
        case .openURL(let first, let second), .continueUserActivity(let first, let second):
            return try first.withCText { first, firstCount in
                try second.withCText { second, secondCount in
                    arguments.first = first
                    arguments.firstCount = firstCount
                    arguments.second = second
                    arguments.secondCount = secondCount
                    return try body(arguments)
                }
            }
        case .registerToken(let token):
            return try token.withUnsafeBufferPointer { token in
                arguments.bytes = token
                return try body(arguments)
            }
        case .memoryWarning, .protectedDataWillBecomeUnavailable, .protectedDataDidBecomeAvailable, .didBecomeActive,
             .willResignActive, .didEnterBackground, .willEnterForeground, .willTerminate:
            return try body(arguments)
        }
    }

    /// Calls the event's C slot in `table` (the plugin's vtable of the event's concern, of its C
    /// type) with the plugin's `ctx` and `c` from ``withCArguments(_:)`` of this event: the slot's
    /// answer (true for one that answers nothing, and for a remote notification, whose answer comes
    /// through `completion`), or nil when the slot is NULL or `table` is another concern's.
    /// `completion` is asked only for a remote notification (nil: the slot is not called).
    /// Always inlined and specialized for `Table`: the casts below are decided when compiling, and
    /// an event known where it is dispatched (``PluginHost``'s typed methods) reduces to its one
    /// slot's call, with no switch and no check left in the loop.
    @inlinable @inline(__always)
    package func callSlot<Table>(_ table: Table, ctx: UnsafeMutableRawPointer?, _ c: CEventArguments,
                                 completion: () -> UnsafePointer<pb_fetch_completion_t>?) -> Bool? {
        switch self {
        case .willFinishLaunching:
            guard let table = table as? pb_launch_t, let slot = table.will_finish_launching else { return nil }
            return slot(ctx, c.first, c.firstCount)
        case .didFinishLaunching:
            guard let table = table as? pb_launch_t, let slot = table.did_finish_launching else { return nil }
            return slot(ctx, c.first, c.firstCount)
        case .openURL:
            guard let table = table as? pb_open_url_t, let slot = table.open_url else { return nil }
            return slot(ctx, c.first, c.firstCount, c.second, c.secondCount)
        case .continueUserActivity:
            guard let table = table as? pb_user_activity_t, let slot = table.continue_user_activity else { return nil }
            return slot(ctx, c.first, c.firstCount, c.second, c.secondCount)
        case .remoteNotification:
            guard let table = table as? pb_remote_notifications_t, let slot = table.did_receive_remote_notification,
                  let completion = completion() else { return nil }
            slot(ctx, c.first, c.firstCount, completion)
        case .registerToken:
            guard let table = table as? pb_remote_notifications_t, let slot = table.did_register else { return nil }
            slot(ctx, c.bytes?.baseAddress, c.bytes?.count ?? 0)
        case .registerFailed:
            guard let table = table as? pb_remote_notifications_t, let slot = table.did_fail_to_register else { return nil }
            slot(ctx, c.first, c.firstCount)
        case .memoryWarning:
            guard let table = table as? pb_memory_t, let slot = table.did_receive_memory_warning else { return nil }
            slot(ctx)
        case .protectedDataWillBecomeUnavailable:
            guard let table = table as? pb_protected_data_t, let slot = table.will_become_unavailable else { return nil }
            slot(ctx)
        case .protectedDataDidBecomeAvailable:
            guard let table = table as? pb_protected_data_t, let slot = table.did_become_available else { return nil }
            slot(ctx)
        case .didBecomeActive:
            guard let table = table as? pb_app_state_t, let slot = table.did_become_active else { return nil }
            slot(ctx)
        case .willResignActive:
            guard let table = table as? pb_app_state_t, let slot = table.will_resign_active else { return nil }
            slot(ctx)
        case .didEnterBackground:
            guard let table = table as? pb_app_state_t, let slot = table.did_enter_background else { return nil }
            slot(ctx)
        case .willEnterForeground:
            guard let table = table as? pb_app_state_t, let slot = table.will_enter_foreground else { return nil }
            slot(ctx)
        case .willTerminate:
            guard let table = table as? pb_termination_t, let slot = table.will_terminate else { return nil }
            slot(ctx)
        }
        return true
    }

    /// Calls the event's method of a Swift plugin: its answer (true for one that answers
    /// nothing, and for a remote notification, whose answer comes through `completion`), or
    /// nil when the plugin does not conform to the event's concern protocol (or, for a remote
    /// notification, `completion` gives none).
    package func callSwift(_ plugin: any ApplicationPlugin, completion: () -> FetchCompletion?) -> Bool? {
        switch self {
        case .willFinishLaunching(let options):
            guard let plugin = plugin as? any LaunchPlugin else { return nil }
            return options.withTextSpan { plugin.willFinishLaunching(options: $0) }
        case .didFinishLaunching(let options):
            guard let plugin = plugin as? any LaunchPlugin else { return nil }
            return options.withTextSpan { plugin.didFinishLaunching(options: $0) }
        case .openURL(let url, let options):
            guard let plugin = plugin as? any OpenURLPlugin else { return nil }
            return url.withTextSpan { url in options.withTextSpan { plugin.open(url: url, options: $0) } }
        case .continueUserActivity(let type, let userInfo):
            guard let plugin = plugin as? any UserActivityPlugin else { return nil }
            return type.withTextSpan { type in userInfo.withTextSpan { plugin.continueUserActivity(type: type, userInfo: $0) } }
        case .remoteNotification(let userInfo, _):
            guard let plugin = plugin as? any RemoteNotificationPlugin, let completion = completion() else { return nil }
            userInfo.withTextSpan { plugin.didReceiveRemoteNotification(userInfo: $0, completion: completion) }
        case .registerToken(let token):
            guard let plugin = plugin as? any RemoteNotificationPlugin else { return nil }
            token.withUnsafeBufferPointer { plugin.didRegisterForRemoteNotifications(deviceToken: $0.span) }
        case .registerFailed(let error):
            guard let plugin = plugin as? any RemoteNotificationPlugin else { return nil }
            error.withTextSpan { plugin.didFailToRegisterForRemoteNotifications(error: $0) }
        case .memoryWarning:
            guard let plugin = plugin as? any MemoryWarningPlugin else { return nil }
            plugin.didReceiveMemoryWarning()
        case .protectedDataWillBecomeUnavailable:
            guard let plugin = plugin as? any ProtectedDataPlugin else { return nil }
            plugin.protectedDataWillBecomeUnavailable()
        case .protectedDataDidBecomeAvailable:
            guard let plugin = plugin as? any ProtectedDataPlugin else { return nil }
            plugin.protectedDataDidBecomeAvailable()
        case .didBecomeActive:
            guard let plugin = plugin as? any AppStatePlugin else { return nil }
            plugin.didBecomeActive()
        case .willResignActive:
            guard let plugin = plugin as? any AppStatePlugin else { return nil }
            plugin.willResignActive()
        case .didEnterBackground:
            guard let plugin = plugin as? any AppStatePlugin else { return nil }
            plugin.didEnterBackground()
        case .willEnterForeground:
            guard let plugin = plugin as? any AppStatePlugin else { return nil }
            plugin.willEnterForeground()
        case .willTerminate:
            guard let plugin = plugin as? any TerminationPlugin else { return nil }
            plugin.willTerminate()
        }
        return true
    }
}
