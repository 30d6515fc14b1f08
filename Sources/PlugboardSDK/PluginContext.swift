import CPlugboard
import PlugboardPluginAPI

/// One plugin as the host's `ctx`: the plugin value and, for each concern it takes part in, its
/// conformance to that concern's protocol (nil for the rest). Text and bytes reach the plugin
/// borrowed (`TextSpan`, `Span`), as the concern protocols' borrowed forms take them.
///
/// Each conformance is cast once, here, and kept behind a reference of its own (``Conformance``),
/// which the callbacks borrow: a call reaches the plugin's method with one witness call, with no
/// cast, no copy of an existential and no reference counting per call.
/// Retained from `register_plugins` until `deinit`; the vtables borrow it with ``with(_:_:else:_:)``,
/// a type's own entries with ``with(_:as:else:_:)``. Each is a ``TypedPluginContext`` of the
/// plugin's type. Sendable by hand: the host makes every call of a plugin on its one dispatch
/// thread, one at a time (the C ABI's thread rule), so the plugin value is never used by two
/// threads at once.
@usableFromInline
class PluginContext: @unchecked Sendable {
    let plugin: any ApplicationPlugin
    let launch: Unmanaged<Conformance<any LaunchPlugin>>?
    let openURL: Unmanaged<Conformance<any OpenURLPlugin>>?
    let userActivity: Unmanaged<Conformance<any UserActivityPlugin>>?
    let remoteNotifications: Unmanaged<Conformance<any RemoteNotificationPlugin>>?
    let memory: Unmanaged<Conformance<any MemoryWarningPlugin>>?
    let protectedData: Unmanaged<Conformance<any ProtectedDataPlugin>>?
    let appState: Unmanaged<Conformance<any AppStatePlugin>>?
    let termination: Unmanaged<Conformance<any TerminationPlugin>>?
    let savedState: Unmanaged<Conformance<any SavedStatePlugin>>?
    /// The C functions of a ``FunctionsPlugin``'s functions; freed with this context.
    let functions: [ExportedFunction]
    /// Keeps the conformances, which the callbacks borrow with no reference count.
    private let conformances: [AnyObject]
    /// The plugin type's own entries (`@Plugin`), when it has them; else the shared tables serve.
    let entries: PluginEntries?

    /// The context of `plugin`, typed by the type the existential holds (opened): for a class, the
    /// type the plugin value had when it was made `any ApplicationPlugin`, which may be a superclass
    /// of the object's.
    static func make(_ plugin: any ApplicationPlugin, host: PlugboardHost) -> PluginContext {
        func typed<Plugin: ApplicationPlugin>(_ plugin: Plugin) -> PluginContext { TypedPluginContext(plugin, host: host) }
        return typed(plugin)
    }

    /// Keeps `plugin` and its conformances to the concern protocols it both conforms to and
    /// declares in `concerns`, and makes the C functions of its functions (logged through `host`
    /// for the plugin).
    fileprivate init(_ plugin: any ApplicationPlugin, entries: PluginEntries?, host: PlugboardHost) {
        let concerns = plugin.concerns
        self.entries = entries
        self.plugin = plugin
        let log = host.logger(for: plugin.descriptor.id)
        functions = ((plugin as? any FunctionsPlugin)?.functions ?? []).compactMap { ExportedFunction.make($0, log: log) }
        var kept: [AnyObject] = []
        func keep<Concern>(_ conformance: Conformance<Concern>?) -> Unmanaged<Conformance<Concern>>? {
            guard let conformance else { return nil }
            kept.append(conformance)
            return .passUnretained(conformance)
        }
        launch = keep(Conformance(plugin, concerns.contains(.launch)))
        openURL = keep(Conformance(plugin, concerns.contains(.openURL)))
        userActivity = keep(Conformance(plugin, concerns.contains(.userActivity)))
        remoteNotifications = keep(Conformance(plugin, concerns.contains(.remoteNotifications)))
        memory = keep(Conformance(plugin, concerns.contains(.memory)))
        protectedData = keep(Conformance(plugin, concerns.contains(.protectedData)))
        appState = keep(Conformance(plugin, concerns.contains(.appState)))
        termination = keep(Conformance(plugin, concerns.contains(.termination)))
        savedState = keep(Conformance(plugin, concerns.contains(.savedState)))
        conformances = kept
    }

    /// `body` with the plugin as `concern`'s protocol (one of this context's conformances), the
    /// context behind `ctx` borrowed without a retain (it is retained from `register_plugins` until
    /// `deinit`, which the host never runs during a callback); `fallback` when the host passed NULL
    /// or the plugin does not take part in the concern (the host never calls it then).
    @inline(__always)
    static func with<Concern, Result>(_ ctx: UnsafeMutableRawPointer?, _ concern: (PluginContext) -> Unmanaged<Conformance<Concern>>?,
                                      else fallback: Result, _ body: (Concern) -> Result) -> Result {
        guard let ctx else { return fallback }
        return Unmanaged<PluginContext>.fromOpaque(ctx)._withUnsafeGuaranteedRef { context in
            guard let conformance = concern(context) else { return fallback }
            return conformance._withUnsafeGuaranteedRef { body($0.plugin) }
        }
    }

    /// `body` with the plugin of `ctx`, which a type's own entries know to be a `Plugin`: read in place,
    /// with no cast and no witness (``PluginEntries`` are only given to a context of their type).
    @inlinable @inline(__always)
    static func with<Plugin: ApplicationPlugin, Result>(_ ctx: UnsafeMutableRawPointer?, as type: Plugin.Type, else fallback: Result,
                                     _ body: (Plugin) -> Result) -> Result {
        guard let ctx else { return fallback }
        return Unmanaged<TypedPluginContext<Plugin>>.fromOpaque(ctx)._withUnsafeGuaranteedRef { body($0.value) }
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
                    record.launch = launch.map { _ in entries?.launch ?? ConcernTables.launch.pointer }
                    record.open_url = openURL.map { _ in entries?.openURL ?? ConcernTables.openURL.pointer }
                    record.user_activity = userActivity.map { _ in entries?.userActivity ?? ConcernTables.userActivity.pointer }
                    record.remote_notifications = remoteNotifications.map { _ in entries?.remoteNotifications ?? ConcernTables.remoteNotifications.pointer }
                    record.memory = memory.map { _ in entries?.memory ?? ConcernTables.memory.pointer }
                    record.protected_data = protectedData.map { _ in entries?.protectedData ?? ConcernTables.protectedData.pointer }
                    record.app_state = appState.map { _ in entries?.appState ?? ConcernTables.appState.pointer }
                    record.termination = termination.map { _ in entries?.termination ?? ConcernTables.termination.pointer }
                    record.saved_state = savedState.map { _ in ConcernTables.savedState.pointer }
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

/// A plugin as one concern's protocol (`any OpenURLPlugin`…), behind a reference of its own: a
/// callback reads the existential in place through it and calls its witness. (Kept in the
/// context as an `(any Concern)?` instead, it would be copied out per call through the generic
/// Optional value witness, retaining what the plugin holds; see BENCHMARKS.md.)
final class Conformance<Concern>: @unchecked Sendable {
    /// The plugin, as `Concern`.
    let plugin: Concern

    /// `plugin` as `Concern` when it takes part (it declares the concern) and conforms; else nil.
    init?(_ plugin: any ApplicationPlugin, _ takesPart: Bool) {
        guard takesPart, let plugin = plugin as? Concern else { return nil }
        self.plugin = plugin
    }
}

/// A plugin's context with the plugin as its own type, which a type's own entries read in place.
@usableFromInline
final class TypedPluginContext<Plugin: ApplicationPlugin>: PluginContext, @unchecked Sendable {
    /// The plugin.
    @usableFromInline
    let value: Plugin

    /// The context of `plugin`, with its type's own entries when it has them (and they are its
    /// type's, not a superclass's: they read the context as their type's).
    init(_ plugin: Plugin, host: PlugboardHost) {
        value = plugin
        let entries = (Plugin.self as? any PluginEntryProviding.Type)?.pluginEntries
        super.init(plugin, entries: entries.flatMap { $0.type == ObjectIdentifier(Plugin.self) ? $0 : nil }, host: host)
    }
}
