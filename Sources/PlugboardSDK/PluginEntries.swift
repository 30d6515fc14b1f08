import CPlugboard
import PlugboardPluginAPI

/// A plugin type that has C entries of its own, which `@Plugin` (PlugboardSDKMacros) writes: the
/// host's calls reach its methods directly, inlined, instead of through the shared entries and a
/// protocol witness.
public protocol PluginEntryProviding: ApplicationPlugin {
    /// The type's C entries, made once.
    static var pluginEntries: PluginEntries { get }
}

/// One plugin type's own C vtables, one per concern: each slot is a C function written in the
/// plugin's module for its type (by `@Plugin`), which reads the plugin from `ctx` as that type and
/// calls its method with nothing between. Used only for plugins whose type is exactly that type
/// (a plugin typed as a subclass uses the shared entries), and for the concerns the plugin takes
/// part in. Saved state always goes through the shared entries.
///
/// The slots call the static functions below, each of which has two overloads: the one for a type
/// that conforms to the slot's concern, chosen where the conformance is seen, and one that reaches
/// the plugin as the shared entries do, chosen where it is not (so the macro needs no list of the
/// type's conformances).
///
/// Written by `@Plugin` only: a slot reads `ctx` as its type's context unchecked, so entries whose
/// slots are not of `type` are undefined behaviour.
public struct PluginEntries: @unchecked Sendable {
    let type: ObjectIdentifier
    let launch: UnsafePointer<pb_launch_t>
    let openURL: UnsafePointer<pb_open_url_t>
    let userActivity: UnsafePointer<pb_user_activity_t>
    let remoteNotifications: UnsafePointer<pb_remote_notifications_t>
    let memory: UnsafePointer<pb_memory_t>
    let protectedData: UnsafePointer<pb_protected_data_t>
    let appState: UnsafePointer<pb_app_state_t>
    let termination: UnsafePointer<pb_termination_t>

    /// The entries of `type`: its vtables, kept for the life of the process (their `struct_size`
    /// is set here).
    public init<Plugin: ApplicationPlugin>(
        of type: Plugin.Type, launch: pb_launch_t, openURL: pb_open_url_t, userActivity: pb_user_activity_t,
        remoteNotifications: pb_remote_notifications_t, memory: pb_memory_t, protectedData: pb_protected_data_t,
        appState: pb_app_state_t, termination: pb_termination_t
    ) {
        func kept<Record>(_ record: Record, sizedBy size: WritableKeyPath<Record, UInt32>) -> UnsafePointer<Record> {
            var sized = record
            sized[keyPath: size] = UInt32(MemoryLayout<Record>.size)
            return RecordPointer(sized).pointer
        }
        self.type = ObjectIdentifier(type)
        self.launch = kept(launch, sizedBy: \.struct_size)
        self.openURL = kept(openURL, sizedBy: \.struct_size)
        self.userActivity = kept(userActivity, sizedBy: \.struct_size)
        self.remoteNotifications = kept(remoteNotifications, sizedBy: \.struct_size)
        self.memory = kept(memory, sizedBy: \.struct_size)
        self.protectedData = kept(protectedData, sizedBy: \.struct_size)
        self.appState = kept(appState, sizedBy: \.struct_size)
        self.termination = kept(termination, sizedBy: \.struct_size)
    }
}

/// The slots of a type that conforms to the slot's concern: read the plugin from `ctx` as `Plugin`
/// and call its method, inlined; a NULL `ctx` gets the header's NULL-slot answer.
extension PluginEntries {
    /// `will_finish_launching` of a ``LaunchPlugin``.
    @inlinable @inline(__always)
    public static func willFinishLaunching<Plugin: LaunchPlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?,
                                                                 _ json: UnsafePointer<CChar>?, _ length: Int) -> Bool {
        PluginContext.with(ctx, as: type, else: true) { ConcernCalls.willFinishLaunching($0, json, length) }
    }

    /// `did_finish_launching` of a ``LaunchPlugin``.
    @inlinable @inline(__always)
    public static func didFinishLaunching<Plugin: LaunchPlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?,
                                                                _ json: UnsafePointer<CChar>?, _ length: Int) -> Bool {
        PluginContext.with(ctx, as: type, else: true) { ConcernCalls.didFinishLaunching($0, json, length) }
    }

    /// `open_url` of an ``OpenURLPlugin``.
    @inlinable @inline(__always)
    public static func openURL<Plugin: OpenURLPlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?,
                                                      _ url: UnsafePointer<CChar>?, _ urlLength: Int,
                                                      _ json: UnsafePointer<CChar>?, _ jsonLength: Int) -> Bool {
        PluginContext.with(ctx, as: type, else: false) { ConcernCalls.openURL($0, url, urlLength, json, jsonLength) }
    }

    /// `continue_user_activity` of a ``UserActivityPlugin``.
    @inlinable @inline(__always)
    public static func continueUserActivity<Plugin: UserActivityPlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?,
                                                                        _ activity: UnsafePointer<CChar>?, _ activityLength: Int,
                                                                        _ json: UnsafePointer<CChar>?, _ jsonLength: Int) -> Bool {
        PluginContext.with(ctx, as: type, else: false) { ConcernCalls.continueUserActivity($0, activity, activityLength, json, jsonLength) }
    }

    /// `did_register` of a ``RemoteNotificationPlugin``.
    @inlinable @inline(__always)
    public static func didRegister<Plugin: RemoteNotificationPlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?,
                                                                     _ token: UnsafePointer<UInt8>?, _ length: Int) {
        PluginContext.with(ctx, as: type, else: ()) { ConcernCalls.didRegister($0, token, length) }
    }

    /// `did_fail_to_register` of a ``RemoteNotificationPlugin``.
    @inlinable @inline(__always)
    public static func didFailToRegister<Plugin: RemoteNotificationPlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?,
                                                                           _ error: UnsafePointer<CChar>?, _ length: Int) {
        PluginContext.with(ctx, as: type, else: ()) { ConcernCalls.didFailToRegister($0, error, length) }
    }

    /// `did_receive_remote_notification` of a ``RemoteNotificationPlugin``.
    @inlinable @inline(__always)
    public static func didReceive<Plugin: RemoteNotificationPlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?,
                                                                    _ json: UnsafePointer<CChar>?, _ length: Int,
                                                                    _ completion: UnsafePointer<pb_fetch_completion_t>?) {
        PluginContext.with(ctx, as: type, else: ()) { ConcernCalls.didReceive($0, json, length, completion) }
    }

    /// `did_receive_memory_warning` of a ``MemoryWarningPlugin``.
    @inlinable @inline(__always)
    public static func didReceiveMemoryWarning<Plugin: MemoryWarningPlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        PluginContext.with(ctx, as: type, else: ()) { $0.didReceiveMemoryWarning() }
    }

    /// `will_become_unavailable` of a ``ProtectedDataPlugin``.
    @inlinable @inline(__always)
    public static func protectedDataWillBecomeUnavailable<Plugin: ProtectedDataPlugin>(_ type: Plugin.Type,
                                                                                       _ ctx: UnsafeMutableRawPointer?) {
        PluginContext.with(ctx, as: type, else: ()) { $0.protectedDataWillBecomeUnavailable() }
    }

    /// `did_become_available` of a ``ProtectedDataPlugin``.
    @inlinable @inline(__always)
    public static func protectedDataDidBecomeAvailable<Plugin: ProtectedDataPlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        PluginContext.with(ctx, as: type, else: ()) { $0.protectedDataDidBecomeAvailable() }
    }

    /// `did_become_active` of an ``AppStatePlugin``.
    @inlinable @inline(__always)
    public static func didBecomeActive<Plugin: AppStatePlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        PluginContext.with(ctx, as: type, else: ()) { $0.didBecomeActive() }
    }

    /// `will_resign_active` of an ``AppStatePlugin``.
    @inlinable @inline(__always)
    public static func willResignActive<Plugin: AppStatePlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        PluginContext.with(ctx, as: type, else: ()) { $0.willResignActive() }
    }

    /// `did_enter_background` of an ``AppStatePlugin``.
    @inlinable @inline(__always)
    public static func didEnterBackground<Plugin: AppStatePlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        PluginContext.with(ctx, as: type, else: ()) { $0.didEnterBackground() }
    }

    /// `will_enter_foreground` of an ``AppStatePlugin``.
    @inlinable @inline(__always)
    public static func willEnterForeground<Plugin: AppStatePlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        PluginContext.with(ctx, as: type, else: ()) { $0.willEnterForeground() }
    }

    /// `will_terminate` of a ``TerminationPlugin``.
    @inlinable @inline(__always)
    public static func willTerminate<Plugin: TerminationPlugin>(_ type: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        PluginContext.with(ctx, as: type, else: ()) { $0.willTerminate() }
    }
}

/// The slots of a type whose conformance to the slot's concern its module does not see (a plugin
/// whose dynamic type is a subclass that adopts the concern, a conformance declared in another
/// module): they reach the plugin through its conformance, as the shared entries do.
extension PluginEntries {
    /// The shared `will_finish_launching`.
    public static func willFinishLaunching<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?,
                                                   _ json: UnsafePointer<CChar>?, _ length: Int) -> Bool {
        ConcernTables.launch.pointer.pointee.will_finish_launching?(ctx, json, length) ?? true
    }
    /// The shared `did_finish_launching`.
    public static func didFinishLaunching<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?,
                                                  _ json: UnsafePointer<CChar>?, _ length: Int) -> Bool {
        ConcernTables.launch.pointer.pointee.did_finish_launching?(ctx, json, length) ?? true
    }
    /// The shared `open_url`.
    public static func openURL<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?, _ url: UnsafePointer<CChar>?, _ urlLength: Int,
                                       _ json: UnsafePointer<CChar>?, _ jsonLength: Int) -> Bool {
        ConcernTables.openURL.pointer.pointee.open_url?(ctx, url, urlLength, json, jsonLength) ?? false
    }
    /// The shared `continue_user_activity`.
    public static func continueUserActivity<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?,
                                                    _ activity: UnsafePointer<CChar>?, _ activityLength: Int,
                                                    _ json: UnsafePointer<CChar>?, _ jsonLength: Int) -> Bool {
        ConcernTables.userActivity.pointer.pointee.continue_user_activity?(ctx, activity, activityLength, json, jsonLength) ?? false
    }
    /// The shared `did_register`.
    public static func didRegister<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?, _ token: UnsafePointer<UInt8>?, _ length: Int) {
        ConcernTables.remoteNotifications.pointer.pointee.did_register?(ctx, token, length)
    }
    /// The shared `did_fail_to_register`.
    public static func didFailToRegister<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?,
                                                 _ error: UnsafePointer<CChar>?, _ length: Int) {
        ConcernTables.remoteNotifications.pointer.pointee.did_fail_to_register?(ctx, error, length)
    }
    /// The shared `did_receive_remote_notification`.
    public static func didReceive<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?, _ json: UnsafePointer<CChar>?, _ length: Int,
                                          _ completion: UnsafePointer<pb_fetch_completion_t>?) {
        ConcernTables.remoteNotifications.pointer.pointee.did_receive_remote_notification?(ctx, json, length, completion)
    }
    /// The shared `did_receive_memory_warning`.
    public static func didReceiveMemoryWarning<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        ConcernTables.memory.pointer.pointee.did_receive_memory_warning?(ctx)
    }
    /// The shared `will_become_unavailable`.
    public static func protectedDataWillBecomeUnavailable<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        ConcernTables.protectedData.pointer.pointee.will_become_unavailable?(ctx)
    }
    /// The shared `did_become_available`.
    public static func protectedDataDidBecomeAvailable<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        ConcernTables.protectedData.pointer.pointee.did_become_available?(ctx)
    }
    /// The shared `did_become_active`.
    public static func didBecomeActive<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        ConcernTables.appState.pointer.pointee.did_become_active?(ctx)
    }
    /// The shared `will_resign_active`.
    public static func willResignActive<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        ConcernTables.appState.pointer.pointee.will_resign_active?(ctx)
    }
    /// The shared `did_enter_background`.
    public static func didEnterBackground<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        ConcernTables.appState.pointer.pointee.did_enter_background?(ctx)
    }
    /// The shared `will_enter_foreground`.
    public static func willEnterForeground<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        ConcernTables.appState.pointer.pointee.will_enter_foreground?(ctx)
    }
    /// The shared `will_terminate`.
    public static func willTerminate<Plugin>(_: Plugin.Type, _ ctx: UnsafeMutableRawPointer?) {
        ConcernTables.termination.pointer.pointee.will_terminate?(ctx)
    }
}
