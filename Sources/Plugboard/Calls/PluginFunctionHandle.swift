import CFaultReporter

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
    public private(set) var declaration: FunctionDeclaration
    /// The parsed signature that arguments are checked against.
    public private(set) var signature: FunctionSignature

    private let host: PluginHost
    private var target: Target
    private var generation: Int

    /// Where a call goes.
    enum Target {
        /// A function of a library loaded in this process, recorded as `label`'s code.
        case inProcess(PluginFunction, label: UnsafePointer<pbf_label_t>)
        /// A function of a plugin loaded in a worker.
        case worker
    }

    /// Resolves `address` in `host`'s registry, or throws why it cannot be called.
    init(_ address: FunctionAddress, in host: PluginHost) throws(PluginCallError) {
        let resolved = try Self.resolve(address, in: host)
        self.address = address
        self.host = host
        declaration = resolved.declaration
        signature = resolved.signature
        target = resolved.target
        generation = host.registry.generation
    }

    /// Calls the function with `arguments`, checked against ``signature``, and returns its
    /// result; see ``PluginHost/call(_:_:)`` for how the call runs and what it throws.
    public func call(_ arguments: [PluginValue]) throws(PluginCallError) -> PluginValue {
        if generation != host.registry.generation { try refresh() }
        switch target {
        case .inProcess(let function, let label):
            return try function.call(arguments, address: address, record: host.calls, label: label)
        case .worker:
            throw .notForwardedToWorkers(address)
        }
    }

    /// Resolves the address again, after the host's plugins changed.
    private func refresh() throws(PluginCallError) {
        let resolved = try Self.resolve(address, in: host)
        declaration = resolved.declaration
        signature = resolved.signature
        target = resolved.target
        generation = host.registry.generation
    }

    /// The plugin by id, then the function by name: refused, unknown, or where a call goes.
    private static func resolve(_ address: FunctionAddress, in host: PluginHost) throws(PluginCallError)
        -> (declaration: FunctionDeclaration, signature: FunctionSignature, target: Target) {
        guard let entry = host.registry.entry(address.plugin) else { throw .unknownPlugin(address) }
        if let refusal = entry.refusedFunctions.first(where: { $0.name == address.function }) {
            throw .refusedFunction(address, reason: refusal.reason)
        }
        switch entry.implementation {
        case .native(let definition, _):
            guard let function = definition.functions.named(address.function) else { throw .unknownFunction(address) }
            return (function.declaration, function.signature, .inProcess(function, label: entry.label))
        case .remote:
            guard let declaration = entry.functions.first(where: { $0.name == address.function }) else {
                throw .unknownFunction(address)
            }
            do {
                return (declaration, try FunctionSignature(parsing: declaration.signature), .worker)
            } catch {
                throw .refusedFunction(address, reason: "signature \"\(declaration.signature)\" from the worker: \(error)")
            }
        case .swift:
            throw .unknownFunction(address)
        }
    }
}
