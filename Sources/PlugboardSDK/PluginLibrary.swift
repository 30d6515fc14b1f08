import CPlugboard
import PlugboardPluginAPI
import Synchronization

/// Exports a library of Swift plugins through the C ABI.
///
/// In your plugin module, write the library's one exported symbol:
///
/// ```swift
/// @c(plugboard_entry)
/// public func plugboardEntry() -> UnsafePointer<pb_entry_t> {
///     PluginLibrary.entry { host in [try GreeterPlugin(host: host)] }
/// }
/// ```
///
/// Only C types cross: the host sees a `pb_entry_t` and, per plugin, a `pb_plugin_t` whose
/// vtables are C functions of this library and whose `ctx` is the Swift plugin, retained.
/// A Swift plugin .so is just another C plugin to the host; the host never casts its Swift types.
///
/// A plugin that traps (`fatalError`, a failed `!`, an out-of-range index) is a crash like any
/// other: with `--isolation process` its worker dies and the host reports it; with
/// `--isolation none` it ends the host, whose fault line names the plugin.
public enum PluginLibrary {
    /// The library's entry record, made on the first call; the same record on every call.
    ///
    /// `makePlugins` runs once per `register_plugins` (on the host's dispatch thread) with the
    /// host's services; each plugin it returns is added with its descriptor and with the vtables of
    /// the concerns it takes part in (``ApplicationPlugin/concerns``). The plugins are released in
    /// `deinit`. If it throws, the error is logged at error level and none of the library's
    /// plugins is used (the load report shows the message).
    public static func entry(
        _ makePlugins: @escaping @Sendable (PlugboardHost) throws -> [any ApplicationPlugin]
    ) -> UnsafePointer<pb_entry_t> {
        library.withLock { $0.makePlugins = makePlugins }
        return entryRecord.pointer
    }

    /// What the library holds between `init` and `deinit`.
    struct State {
        var makePlugins: (@Sendable (PlugboardHost) throws -> [any ApplicationPlugin])?
        var host: PlugboardHost?
        var contexts: [Unmanaged<PluginContext>] = []
    }

    /// The library's one state; the host calls init, register and deinit on its dispatch thread.
    static let library = Mutex(State())

    /// The entry record, made once and never freed (the library is never unloaded).
    static let entryRecord = RecordPointer(pb_entry_t(
        struct_size: UInt32(MemoryLayout<pb_entry_t>.size),
        abi_major: UInt32(PB_ABI_VERSION_MAJOR),
        abi_minor: UInt32(PB_ABI_VERSION_MINOR),
        init: { table in
            guard let table else { return false }
            library.withLock { $0.host = PlugboardHost(pointer: HostPointer(table: table)) }
            return true
        },
        deinit: {
            let contexts = library.withLock { state in
                defer { state.contexts = []; state.host = nil }
                return state.contexts
            }
            contexts.forEach { $0.release() }
        },
        register_plugins: { registrar in registerPlugins(registrar) }))

    /// Adds every plugin of the factory; false (logged) when there is no factory, host or registrar,
    /// or when the host refuses a plugin.
    private static func registerPlugins(_ registrar: UnsafePointer<pb_registrar_t>?) -> Bool {
        let (makePlugins, host) = library.withLock { ($0.makePlugins, $0.host) }
        guard let registrar, let makePlugins, let host, let addPlugin = registrar.pointee.add_plugin else {
            return false
        }
        let plugins: [any ApplicationPlugin]
        do {
            plugins = try makePlugins(host)
        } catch {
            host.logLibraryError("the plugins could not be made: \(error)")
            return false
        }
        for plugin in plugins {
            let context = Unmanaged.passRetained(PluginContext.make(plugin, host: host))
            library.withLock { $0.contexts.append(context) }
            let status = context.takeUnretainedValue().withDescriptor(ctx: context.toOpaque()) {
                addPlugin(registrar, $0)
            }
            guard status == PB_OK else {
                host.logLibraryError("the host refused plugin \(plugin.descriptor.id.rawValue) (status \(status))")
                return false
            }
        }
        return true
    }
}

/// A C record made once and kept for the life of the process; read-only after it is made.
struct RecordPointer<Record>: @unchecked Sendable {
    let pointer: UnsafePointer<Record>

    /// Copies `record` to memory that is never freed.
    init(_ record: Record) {
        let memory = UnsafeMutablePointer<Record>.allocate(capacity: 1)
        memory.initialize(to: record)
        pointer = UnsafePointer(memory)
    }
}
