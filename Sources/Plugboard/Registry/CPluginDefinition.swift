import CPlugboard
import Glibc

/// A plugin as a C library added it: the copied descriptor and the vtables
/// read to the plugin's `struct_size` (missing slots zero, which reads as NULL).
///
/// A class, immutable: the library, the registry's entry and the invoker's target share one
/// (a copy of its many texts and arrays would cost a reference count each).
final class CPluginDefinition: @unchecked Sendable {
    let descriptor: PluginDescriptor
    let ctx: UnsafeMutableRawPointer?
    /// The concern vtables (saved state since ABI 1.3: nil for an older plugin, whose struct
    /// ends before the slot).
    let vtables: PluginVtables
    /// The functions it declared (since ABI 1.2), checked and prepared, and those refused.
    let functions: PluginFunctions
    /// The `struct_size` the plugin declared for its descriptor, its functions and each vtable (the
    /// library's ABI facts merge them with its other plugins', ``LibraryABI``).
    let declaredSizes: DeclaredStructSizes
    /// The concerns whose vtable is present, in declaration order.
    let concerns: [PluginConcern]

    private init(descriptor: PluginDescriptor, ctx: UnsafeMutableRawPointer?, vtables: PluginVtables,
                 functions: PluginFunctions, declaredSizes: DeclaredStructSizes) {
        self.descriptor = descriptor
        self.ctx = ctx
        self.vtables = vtables
        self.functions = functions
        self.declaredSizes = declaredSizes
        concerns = Self.concerns(of: vtables)
    }

    /// The concerns whose vtable `vtables` has, in declaration order.
    private static func concerns(of vtables: PluginVtables) -> [PluginConcern] {
        var present: [PluginConcern] = []
        present.reserveCapacity(9)
        if vtables.launch != nil { present.append(.launch) }
        if vtables.openURL != nil { present.append(.openURL) }
        if vtables.userActivity != nil { present.append(.userActivity) }
        if vtables.remoteNotifications != nil { present.append(.remoteNotifications) }
        if vtables.memory != nil { present.append(.memory) }
        if vtables.protectedData != nil { present.append(.protectedData) }
        if vtables.appState != nil { present.append(.appState) }
        if vtables.termination != nil { present.append(.termination) }
        if vtables.savedState != nil { present.append(.savedState) }
        return present
    }

    /// Validates and copies what `add_plugin` received, or says why it is refused.
    static func read(_ pointer: UnsafePointer<pb_plugin_t>) -> Result<CPluginDefinition, PluginRefusal> {
        let raw = UnsafeRawPointer(pointer)
        let plugin: pb_plugin_t
        switch pb_plugin_t.read(from: raw) {
        case .success(let value): plugin = value
        case .failure(let error): return .failure(refusal("", error.description))
        }
        let idText = plugin.id.map { String(cString: $0) } ?? ""
        guard plugin.id != nil else { return .failure(refusal("", "pb_plugin_t.id is NULL")) }
        let id: PluginID
        do { id = try PluginID(validating: idText) } catch {
            return .failure(refusal(idText, "invalid plugin id '\(idText)': \(error)"))
        }
        var sizes = DeclaredStructSizes()
        sizes.declare(.plugin, size: Int(plugin.struct_size))
        let (functions, functionSize) = PluginFunctions.read(plugin)
        if let functionSize { sizes.declare(.function, size: functionSize) }
        func vtable<T: ABIStruct>(_ pointer: UnsafePointer<T>?) throws(ABIStructError) -> T? {
            guard let pointer else { return nil }
            let raw = UnsafeRawPointer(pointer)
            sizes.declare(T.structName, size: Int(raw.load(as: UInt32.self)))
            return try T.read(from: raw).get()
        }
        do {
            return .success(CPluginDefinition(
                descriptor: PluginDescriptor(
                    id: id,
                    name: plugin.name.map(Self.boundedText) ?? "",
                    version: plugin.version.map(Self.boundedText) ?? "0",
                    priority: plugin.priority),
                ctx: plugin.ctx,
                vtables: PluginVtables(
                    launch: try vtable(plugin.launch),
                    openURL: try vtable(plugin.open_url),
                    userActivity: try vtable(plugin.user_activity),
                    remoteNotifications: try vtable(plugin.remote_notifications),
                    memory: try vtable(plugin.memory),
                    protectedData: try vtable(plugin.protected_data),
                    appState: try vtable(plugin.app_state),
                    termination: try vtable(plugin.termination),
                    savedState: try vtable(plugin.saved_state)),
                functions: functions,
                declaredSizes: sizes))
        } catch {
            return .failure(refusal(idText, "plugin '\(idText)': \(error)"))
        }
    }

    /// The text at `pointer`, read no further than one byte past a name's or a version's limit (the
    /// registry refuses what is longer), bytes that are not UTF-8 repaired.
    private static func boundedText(_ pointer: UnsafePointer<CChar>) -> String {
        let count = strnlen(pointer, PluginDescriptor.maximumTextLength + 1)
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    private static func refusal(_ id: String, _ message: String) -> PluginRefusal {
        PluginRefusal(id: id, failure: LoadFailure(.register, message))
    }
}
