/// A plugin function resolved once by ``PluginHost/function(_:)``, then called many
/// times without looking the plugin and the function up again: the one way the host
/// calls a plugin function (``PluginHost/call(_:_:)`` resolves and calls once).
///
/// A handle stays usable while the host's plugins change: when the host has added or
/// removed plugins since the handle was resolved (a worker ended, ``PluginHost/shutdown()``),
/// the next call resolves the address again, and throws as a new resolution would
/// (``PluginCallError/unknownPlugin(_:)`` after a shutdown).
///
/// Use it on the host's thread, like the host itself.
public final class PluginFunctionHandle {
    /// Where the function is.
    public let address: FunctionAddress
    /// The declaration as the plugin made it: name, signature text, doc.
    public var declaration: FunctionDeclaration { resolved.declaration }
    /// The parsed signature that arguments are checked against.
    public var signature: FunctionSignature { resolved.signature }

    private let registry: PluginRegistry
    private let invoker: FunctionInvoker
    private let workers: WorkerSupervisor
    // Read on every call and used from the host's one thread (like the host): not checked
    // for exclusive access at run time.
    @exclusivity(unchecked) private var resolved: ResolvedFunction
    @exclusivity(unchecked) private var generation: Int

    /// Resolves `address` among `registry`'s plugins through `invoker`, or throws why it cannot be
    /// called; a worker that fails during a call goes to `workers`.
    init(_ address: FunctionAddress, registry: PluginRegistry, invoker: FunctionInvoker,
         workers: WorkerSupervisor) throws(PluginCallError) {
        self.address = address
        self.registry = registry
        self.invoker = invoker
        self.workers = workers
        generation = registry.generation
        resolved = try invoker.resolve(address, caller: .here).get()
    }

    /// Calls the function with `arguments`, checked against ``signature``, and returns its
    /// result; see ``PluginHost/call(_:_:)`` for how the call runs and what it throws.
    public func call(_ arguments: [PluginValue]) throws(PluginCallError) -> PluginValue {
        try call(current(), arguments)
    }

    /// A call of the function with `arguments` prepared once for many calls: they are
    /// checked and converted now, and ``PreparedFunctionCall/set(_:to:)`` changes one.
    /// Throws what a call with them would throw before running (a wrong count, a wrong
    /// type, a value out of range, a string with a NUL character).
    public func prepare(_ arguments: [PluginValue]) throws(PluginCallError) -> PreparedFunctionCall {
        try PreparedFunctionCall(self, arguments: arguments)
    }

    /// The function as resolved now: resolved again when the host's plugins changed since.
    func current() throws(PluginCallError) -> ResolvedFunction {
        if generation != registry.generation {
            generation = registry.generation
            resolved = try invoker.resolve(address, caller: .here).get()
        }
        return resolved
    }

    /// Whether `function` is the function as resolved now (the host's plugins did not change since).
    @inline(__always)
    func isCurrent(_ function: ResolvedFunction) -> Bool {
        generation == registry.generation && function === resolved
    }

    /// Calls `function` (``current()``) with `arguments`.
    private func call(_ function: ResolvedFunction, _ arguments: [PluginValue]) throws(PluginCallError) -> PluginValue {
        try ended(invoker.call(function, arguments, depth: 0, onDispatchThread: true, interrupted: { workers.interruption() }), function).get()
    }

    /// Calls the function `frame` was written for (``current()``) with the arguments set in it.
    @inline(__always)
    func call(_ frame: ArgumentFrame) -> Result<PluginValue, PluginCallError> {
        let workers = Unmanaged.passUnretained(workers)
        let outcome = Unmanaged.passUnretained(invoker)._withUnsafeGuaranteedRef { invoker in
            invoker.call(frame, interrupted: { workers._withUnsafeGuaranteedRef { $0.interruption() } })
        }
        return ended(outcome, frame.resolved)
    }

    /// `outcome`; a worker that ended during the call of `function` is withdrawn first.
    @inline(__always)
    private func ended(_ outcome: Result<PluginValue, PluginCallError>, _ function: ResolvedFunction) -> Result<PluginValue, PluginCallError> {
        if case .failure(.workerEnded(_, let sentence)) = outcome, case .worker(let connection, _, _) = function.place {
            workers.withdraw(connection, failure: PluginFailure(plugin: address.plugin, message: sentence))
        }
        return outcome
    }
}
