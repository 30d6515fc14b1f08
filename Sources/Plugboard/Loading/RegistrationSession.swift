import CPlugboard
import Synchronization

/// The registrar handed to one `register_plugins` call, and what it collected.
///
/// The `pb_registrar_t` and this session are allocated once and never freed,
/// on purpose (like the host services table): a plugin that keeps the
/// registrar and calls `add_plugin` late, even after its `deinit`, gets
/// PB_ERR_WRONG_STATE rather than a dangling pointer.
final class RegistrationSession: @unchecked Sendable {
    private struct State {
        var open = true
        var definitions: [CPluginDefinition] = []
        var refusals: [PluginRefusal] = []
        var ids: Set<PluginID> = []
    }

    private let state = Mutex(State())
    let registrar: UnsafeMutablePointer<pb_registrar_t>

    init(host: UnsafePointer<pb_host_t>) {
        registrar = .allocate(capacity: 1)
        registrar.initialize(to: pb_registrar_t(
            struct_size: UInt32(MemoryLayout<pb_registrar_t>.size), host: host, host_data: nil,
            add_plugin: Self.addPlugin))
        // Retained for good: the registrar outlives every host (see above).
        registrar.pointee.host_data = Unmanaged.passRetained(self).toOpaque()
    }

    /// Ends the session and returns what was added and what was refused.
    func close() -> (definitions: [CPluginDefinition], refusals: [PluginRefusal]) {
        state.withLock { state in
            state.open = false
            return (state.definitions, state.refusals)
        }
    }

    private func add(_ plugin: UnsafePointer<pb_plugin_t>?) -> pb_status_t {
        state.withLock { state in
            guard state.open else { return PB_ERR_WRONG_STATE }
            guard let plugin else {
                state.refusals.append(PluginRefusal(id: "", failure: LoadFailure(.register, "add_plugin was called with NULL")))
                return PB_ERR_INVALID_ARGUMENT
            }
            switch CPluginDefinition.read(plugin) {
            case .failure(let refusal):
                state.refusals.append(refusal)
                return PB_ERR_INVALID_ARGUMENT
            case .success(let definition):
                let id = definition.descriptor.id
                // The set of ids is made from the second plugin on: most libraries add one.
                if let first = state.definitions.first, state.ids.isEmpty { state.ids.insert(first.descriptor.id) }
                guard state.definitions.isEmpty || state.ids.insert(id).inserted else {
                    state.refusals.append(PluginRefusal(id: id.rawValue, failure: LoadFailure(
                        .register, "duplicate plugin id '\(id)': this library added it twice")))
                    return PB_ERR_DUPLICATE_ID
                }
                state.definitions.append(definition)
                return PB_OK
            }
        }
    }

    /// `pb_registrar_t.add_plugin`.
    private static let addPlugin: @convention(c) (
        UnsafePointer<pb_registrar_t>?, UnsafePointer<pb_plugin_t>?
    ) -> pb_status_t = { registrar, plugin in
        guard let data = registrar?.pointee.host_data else { return PB_ERR_INVALID_ARGUMENT }
        return Unmanaged<RegistrationSession>.fromOpaque(data).takeUnretainedValue().add(plugin)
    }
}
