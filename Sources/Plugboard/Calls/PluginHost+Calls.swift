/// Calling the functions plugins declare, by address, with checked arguments.
extension PluginHost {
    /// Calls the function at `address` (`plugin-id.function`) with `arguments`, checked
    /// against its declared signature, and returns its result.
    ///
    /// In process the call goes through the plugin's prepared libffi call on the calling
    /// thread (the host's dispatch thread), recorded like every plugin call: with
    /// ``FaultReporter`` installed a crash names the plugin and the function
    /// (`… crashed with SIGSEGV in function convert …`), and the call timeout's warning
    /// names them too. A plugin loaded in a worker gives
    /// ``PluginCallError/notForwardedToWorkers(_:)`` for now.
    ///
    /// Call it from the thread that uses the host, like every other host method.
    public func call(_ address: FunctionAddress, _ arguments: [PluginValue]) throws(PluginCallError) -> PluginValue {
        guard let entry = registry.entry(address.plugin) else { throw .unknownPlugin(address) }
        if let refusal = entry.refusedFunctions.first(where: { $0.name == address.function }) {
            throw .refusedFunction(address, reason: refusal.reason)
        }
        switch entry.implementation {
        case .native(let definition, _):
            guard let function = definition.functions.named(address.function) else { throw .unknownFunction(address) }
            return try function.call(arguments, address: address, record: calls, label: entry.label)
        case .remote:
            guard entry.functions.contains(where: { $0.name == address.function }) else { throw .unknownFunction(address) }
            throw .notForwardedToWorkers(address)
        case .swift:
            throw .unknownFunction(address)
        }
    }

    /// Calls the function at `address`, written `plugin-id.function` (a malformed one is
    /// ``PluginCallError/malformedAddress(_:reason:)``); otherwise as the call with a ``FunctionAddress``.
    public func call(_ address: String, _ arguments: [PluginValue]) throws(PluginCallError) -> PluginValue {
        try call(FunctionAddress(parsing: address), arguments)
    }
}
