import CPlugboard
import PlugboardPluginAPI

/// One plugin as the host's `ctx`: the plugin value and one closure per callback of each concern
/// it takes part in, bound once to its conformance (nil for the rest). Text and bytes reach the
/// closures borrowed (`UTF8Span`, `Span`), as the concern protocols' borrowed forms take them.
///
/// Binding once keeps the callbacks cheap: a call runs the bound closure, with no cast and no copy
/// of an existential per call (an `(any Concern)?` read from here is copied through the generic
/// Optional value witness, retaining what the plugin holds; see BENCHMARKS.md).
/// Retained from `register_plugins` until `deinit`; the vtables borrow it with ``with(_:else:_:)``.
/// Sendable by hand: the host makes every call of a plugin on its one dispatch thread, one at a
/// time (the C ABI's thread rule), so the plugin value is never used by two threads at once.
final class PluginContext: @unchecked Sendable {
    let plugin: any ApplicationPlugin
    let willFinishLaunching: ((UTF8Span) -> Bool)?
    let didFinishLaunching: ((UTF8Span) -> Bool)?
    let openURL: ((UTF8Span, UTF8Span) -> Bool)?
    let continueUserActivity: ((UTF8Span, UTF8Span) -> Bool)?
    let didRegisterForRemoteNotifications: ((Span<UInt8>) -> Void)?
    let didFailToRegisterForRemoteNotifications: ((UTF8Span) -> Void)?
    let didReceiveRemoteNotification: ((UTF8Span, FetchCompletion) -> Void)?
    let didReceiveMemoryWarning: (() -> Void)?
    let protectedDataWillBecomeUnavailable: (() -> Void)?
    let protectedDataDidBecomeAvailable: (() -> Void)?
    let didBecomeActive: (() -> Void)?
    let willResignActive: (() -> Void)?
    let didEnterBackground: (() -> Void)?
    let willEnterForeground: (() -> Void)?
    let willTerminate: (() -> Void)?
    let saveState: (() -> [UInt8]?)?
    let restoreState: (([UInt8], String) -> Bool)?
    /// The C functions of a ``FunctionsPlugin``'s functions; freed with this context.
    let functions: [ExportedFunction]

    /// Keeps `plugin`, binds the callbacks of the concern protocols it both conforms to and
    /// declares in `concerns`, and makes the C functions of its functions (logged through `host`
    /// for the plugin).
    init(_ plugin: any ApplicationPlugin, host: PlugboardHost) {
        let concerns = plugin.concerns
        self.plugin = plugin
        let log = host.logger(for: plugin.descriptor.id)
        functions = ((plugin as? any FunctionsPlugin)?.functions ?? []).compactMap { ExportedFunction.make($0, log: log) }
        // Each concern's existential is opened once, here: its callbacks are closures over the
        // plugin's own type (`Bind`), so a call reaches the conformance with no existential to project
        // (and made with `if let`, not `Optional.map`, whose generic result would add a conversion
        // thunk to every call).
        if let launch = concerns.contains(.launch) ? plugin as? any LaunchPlugin : nil {
            (willFinishLaunching, didFinishLaunching) = Bind.launch(launch)
        } else {
            (willFinishLaunching, didFinishLaunching) = (nil, nil)
        }
        openURL = if let plugin = concerns.contains(.openURL) ? plugin as? any OpenURLPlugin : nil { Bind.openURL(plugin) } else { nil }
        continueUserActivity = if let plugin = concerns.contains(.userActivity) ? plugin as? any UserActivityPlugin : nil {
            Bind.userActivity(plugin)
        } else { nil }
        if let notifications = concerns.contains(.remoteNotifications) ? plugin as? any RemoteNotificationPlugin : nil {
            (didRegisterForRemoteNotifications, didFailToRegisterForRemoteNotifications, didReceiveRemoteNotification)
                = Bind.remoteNotifications(notifications)
        } else {
            (didRegisterForRemoteNotifications, didFailToRegisterForRemoteNotifications, didReceiveRemoteNotification) = (nil, nil, nil)
        }
        didReceiveMemoryWarning = if let plugin = concerns.contains(.memory) ? plugin as? any MemoryWarningPlugin : nil {
            Bind.memory(plugin)
        } else { nil }
        if let protectedData = concerns.contains(.protectedData) ? plugin as? any ProtectedDataPlugin : nil {
            (protectedDataWillBecomeUnavailable, protectedDataDidBecomeAvailable) = Bind.protectedData(protectedData)
        } else {
            (protectedDataWillBecomeUnavailable, protectedDataDidBecomeAvailable) = (nil, nil)
        }
        if let appState = concerns.contains(.appState) ? plugin as? any AppStatePlugin : nil {
            (didBecomeActive, willResignActive, didEnterBackground, willEnterForeground) = Bind.appState(appState)
        } else {
            (didBecomeActive, willResignActive, didEnterBackground, willEnterForeground) = (nil, nil, nil, nil)
        }
        willTerminate = if let plugin = concerns.contains(.termination) ? plugin as? any TerminationPlugin : nil {
            Bind.termination(plugin)
        } else { nil }
        if let savedState = concerns.contains(.savedState) ? plugin as? any SavedStatePlugin : nil {
            (saveState, restoreState) = Bind.savedState(savedState)
        } else {
            (saveState, restoreState) = (nil, nil)
        }
    }

    /// `body` with the context behind `ctx`, borrowed without a retain (it is retained from
    /// `register_plugins` until `deinit`, which the host never runs during a callback);
    /// `fallback` when the host passed NULL.
    @inline(__always)
    static func with<Result>(_ ctx: UnsafeMutableRawPointer?, else fallback: Result,
                             _ body: (PluginContext) -> Result) -> Result {
        guard let ctx else { return fallback }
        return Unmanaged<PluginContext>.fromOpaque(ctx)._withUnsafeGuaranteedRef(body)
    }

    /// Calls `body` with this plugin's C descriptor; the strings live only during the call
    /// (the host copies them in `add_plugin`).
    func withDescriptor<Result>(ctx: UnsafeMutableRawPointer, _ body: (UnsafePointer<pb_plugin_t>) -> Result) -> Result {
        let descriptor = plugin.descriptor
        return descriptor.id.rawValue.withCString { id in
            descriptor.name.withCString { name in
                descriptor.version.withCString { version in
                    var record = pb_plugin_t()
                    record.struct_size = UInt32(MemoryLayout<pb_plugin_t>.size)
                    record.priority = descriptor.priority
                    record.id = id
                    record.name = name
                    record.version = version
                    record.ctx = ctx
                    record.launch = willFinishLaunching.map { _ in ConcernTables.launch.pointer }
                    record.open_url = openURL.map { _ in ConcernTables.openURL.pointer }
                    record.user_activity = continueUserActivity.map { _ in ConcernTables.userActivity.pointer }
                    record.remote_notifications = didReceiveRemoteNotification.map { _ in ConcernTables.remoteNotifications.pointer }
                    record.memory = didReceiveMemoryWarning.map { _ in ConcernTables.memory.pointer }
                    record.protected_data = protectedDataDidBecomeAvailable.map { _ in ConcernTables.protectedData.pointer }
                    record.app_state = didBecomeActive.map { _ in ConcernTables.appState.pointer }
                    record.termination = willTerminate.map { _ in ConcernTables.termination.pointer }
                    record.saved_state = saveState.map { _ in ConcernTables.savedState.pointer }
                    return functions.map(\.declaration).withUnsafeBufferPointer { declarations in
                        record.functions = declarations.baseAddress
                        record.function_count = UInt32(declarations.count)
                        return withUnsafePointer(to: &record, body)
                    }
                }
            }
        }
    }
}

/// A concern's callbacks as closures over the plugin's own type, one function per concern: called
/// with an existential, each opens it once, so a call of a closure is a call of the conformance.
private enum Bind {
    static func launch<Plugin: LaunchPlugin>(_ plugin: Plugin) -> ((UTF8Span) -> Bool, (UTF8Span) -> Bool) {
        ({ plugin.willFinishLaunching(options: $0) }, { plugin.didFinishLaunching(options: $0) })
    }

    static func openURL<Plugin: OpenURLPlugin>(_ plugin: Plugin) -> (UTF8Span, UTF8Span) -> Bool {
        { plugin.open(url: $0, options: $1) }
    }

    static func userActivity<Plugin: UserActivityPlugin>(_ plugin: Plugin) -> (UTF8Span, UTF8Span) -> Bool {
        { plugin.continueUserActivity(type: $0, userInfo: $1) }
    }

    static func remoteNotifications<Plugin: RemoteNotificationPlugin>(_ plugin: Plugin)
        -> ((Span<UInt8>) -> Void, (UTF8Span) -> Void, (UTF8Span, FetchCompletion) -> Void) {
        ({ plugin.didRegisterForRemoteNotifications(deviceToken: $0) },
         { plugin.didFailToRegisterForRemoteNotifications(error: $0) },
         { plugin.didReceiveRemoteNotification(userInfo: $0, completion: $1) })
    }

    static func memory<Plugin: MemoryWarningPlugin>(_ plugin: Plugin) -> () -> Void {
        { plugin.didReceiveMemoryWarning() }
    }

    static func protectedData<Plugin: ProtectedDataPlugin>(_ plugin: Plugin) -> (() -> Void, () -> Void) {
        ({ plugin.protectedDataWillBecomeUnavailable() }, { plugin.protectedDataDidBecomeAvailable() })
    }

    static func appState<Plugin: AppStatePlugin>(_ plugin: Plugin) -> (() -> Void, () -> Void, () -> Void, () -> Void) {
        ({ plugin.didBecomeActive() }, { plugin.willResignActive() }, { plugin.didEnterBackground() }, { plugin.willEnterForeground() })
    }

    static func termination<Plugin: TerminationPlugin>(_ plugin: Plugin) -> () -> Void {
        { plugin.willTerminate() }
    }

    static func savedState<Plugin: SavedStatePlugin>(_ plugin: Plugin) -> (() -> [UInt8]?, ([UInt8], String) -> Bool) {
        ({ plugin.saveState() }, { plugin.restoreState($0, savedVersion: $1) })
    }
}
