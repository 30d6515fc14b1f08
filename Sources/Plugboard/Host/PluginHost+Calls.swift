/// Calling the functions plugins declare, by address, with checked arguments.
extension PluginHost {
    /// Resolves the function at `address` once, for many calls through the handle:
    /// throws ``PluginCallError/unknownPlugin(_:)``, ``PluginCallError/unknownFunction(_:)``
    /// or ``PluginCallError/refusedFunction(_:reason:)`` when there is nothing to call.
    ///
    /// Call it from the thread that uses the host, like every other host method.
    public func function(_ address: FunctionAddress) throws(PluginCallError) -> PluginFunctionHandle {
        try PluginFunctionHandle(address, registry: registry, invoker: functionInvoker, workers: workers)
    }

    /// Calls the function at `address` (`plugin-id.function`) with `arguments`, checked
    /// against its declared signature, and returns its result: ``function(_:)``, then
    /// ``PluginFunctionHandle/call(_:)``.
    ///
    /// In process the call goes through the plugin's prepared libffi call on the calling
    /// thread (the host's dispatch thread), recorded like every plugin call: with
    /// ``FaultReporter`` installed a crash names the plugin and the function
    /// (`… crashed with SIGSEGV in function convert …`), and the call timeout's warning
    /// names them too. A plugin loaded in a worker gets the call forwarded and run there by
    /// the same engine, with the same checks and errors; when its worker ends during the
    /// call (a crash, an exit, the call timeout) the call throws
    /// ``PluginCallError/workerEnded(_:sentence:)`` and the worker is reported, its plugins
    /// withdrawn and restarted, as for a lifecycle callback. A `pointer` argument or result
    /// cannot reach a worker (``PluginCallError/crossesProcesses(_:reason:)``).
    ///
    /// Call it from the thread that uses the host, like every other host method.
    public func call(_ address: FunctionAddress, _ arguments: [PluginValue]) throws(PluginCallError) -> PluginValue {
        try function(address).call(arguments)
    }

    /// Calls the function at `address`, written `plugin-id.function` (a malformed one is
    /// ``PluginCallError/malformedAddress(_:reason:)``); otherwise as the call with a ``FunctionAddress``.
    public func call(_ address: String, _ arguments: [PluginValue]) throws(PluginCallError) -> PluginValue {
        try call(FunctionAddress(parsing: address), arguments)
    }
}
