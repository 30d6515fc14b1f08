import CPlugboard
import PlugboardPluginAPI

/// One plugin as the host's `ctx`: the plugin value and its concern conformances, looked up once.
///
/// Retained from `register_plugins` until `deinit`; the vtables read it back with ``from(_:)``.
/// Sendable by hand: the host makes every call of a plugin on its one dispatch thread, one at a
/// time (the C ABI's thread rule), so the plugin value is never used by two threads at once.
final class PluginContext: @unchecked Sendable {
    let plugin: any ApplicationPlugin
    let launch: (any LaunchPlugin)?
    let openURL: (any OpenURLPlugin)?
    let userActivity: (any UserActivityPlugin)?
    let remoteNotifications: (any RemoteNotificationPlugin)?
    let memory: (any MemoryWarningPlugin)?
    let protectedData: (any ProtectedDataPlugin)?
    let appState: (any AppStatePlugin)?
    let termination: (any TerminationPlugin)?
    /// The C functions of a ``FunctionsPlugin``'s functions; freed with this context.
    let functions: [ExportedFunction]

    /// Keeps `plugin` and the concern protocols it both conforms to and declares in `concerns`,
    /// and makes the C functions of its functions (logged through `host` for the plugin).
    init(_ plugin: any ApplicationPlugin, host: PlugboardHost) {
        let concerns = plugin.concerns
        self.plugin = plugin
        let log = host.logger(for: plugin.descriptor.id)
        functions = ((plugin as? any FunctionsPlugin)?.functions ?? []).compactMap { ExportedFunction.make($0, log: log) }
        launch = concerns.contains(.launch) ? plugin as? any LaunchPlugin : nil
        openURL = concerns.contains(.openURL) ? plugin as? any OpenURLPlugin : nil
        userActivity = concerns.contains(.userActivity) ? plugin as? any UserActivityPlugin : nil
        remoteNotifications = concerns.contains(.remoteNotifications) ? plugin as? any RemoteNotificationPlugin : nil
        memory = concerns.contains(.memory) ? plugin as? any MemoryWarningPlugin : nil
        protectedData = concerns.contains(.protectedData) ? plugin as? any ProtectedDataPlugin : nil
        appState = concerns.contains(.appState) ? plugin as? any AppStatePlugin : nil
        termination = concerns.contains(.termination) ? plugin as? any TerminationPlugin : nil
    }

    /// The context behind a callback's `ctx`; nil only if the host passed NULL.
    static func from(_ ctx: UnsafeMutableRawPointer?) -> PluginContext? {
        ctx.map { Unmanaged<PluginContext>.fromOpaque($0).takeUnretainedValue() }
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
                    record.launch = launch.map { _ in ConcernTables.launch.pointer }
                    record.open_url = openURL.map { _ in ConcernTables.openURL.pointer }
                    record.user_activity = userActivity.map { _ in ConcernTables.userActivity.pointer }
                    record.remote_notifications = remoteNotifications.map { _ in ConcernTables.remoteNotifications.pointer }
                    record.memory = memory.map { _ in ConcernTables.memory.pointer }
                    record.protected_data = protectedData.map { _ in ConcernTables.protectedData.pointer }
                    record.app_state = appState.map { _ in ConcernTables.appState.pointer }
                    record.termination = termination.map { _ in ConcernTables.termination.pointer }
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
