import CFaultReporter
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import PlugboardWorkerProtocol
import Synchronization

/// One host's plugin functions as any thread reaches them: the host's own calls
/// (``PluginHost/call(_:_:)``), plugins' `invoke` in this process, and the `invoke`
/// of plugins in the host's workers. Kept in step with the registry; thread-safe.
///
/// A function in this process runs on the calling thread, recorded for fault and
/// timeout messages; one in a worker is forwarded to that worker (`function-call`).
/// In a worker process, a plugin id it does not hold is relayed to the host
/// (`invoke`).
final class FunctionInvoker: Sendable {
    /// The most invocations one call may be nested in: a cycle ends with an error, not a hang.
    static let depthLimit: UInt32 = 16

    /// Where one registered plugin's functions run.
    struct Target: @unchecked Sendable {
        enum Place {
            /// In this process: the checked functions and the plugin's fault label.
            case here(PluginFunctions, label: UnsafePointer<pbf_label_t>)
            /// In a worker: its plugin number there and its accepted declarations, in order.
            case worker(WorkerConnection, plugin: UInt32, declarations: [FunctionDeclaration])
        }
        let place: Place
        let refused: [FunctionRefusal]
    }

    /// Whether the code that asks for a call runs in this process (pointers may pass) or in another.
    enum Caller {
        /// In this process: a `pointer` passes to a function here.
        case here
        /// In another process (a worker's plugin): no `pointer` passes.
        case worker
    }

    private let targets = Mutex<[PluginID: Target]>([:])
    /// Bumped whenever ``targets`` changes: a prepared invocation resolved before looks its function up again.
    private let targetsGeneration = Atomic<Int>(0)
    private let relay = Mutex<HostInvokeProxy?>(nil)
    /// The host's call site: its dispatch thread's record, and the decorators every call goes through.
    private let callSite: PluginCallSite
    private let callTimeout: Duration?
    private let log: PluginHost.LogHandler

    /// An invoker for a host that calls plugin code through `callSite`.
    init(callSite: PluginCallSite, callTimeout: Duration?, log: @escaping PluginHost.LogHandler) {
        self.callSite = callSite
        self.callTimeout = callTimeout
        self.log = log
    }

    /// Keeps in step with `registry` from now on: every change is published here.
    func follow(_ registry: PluginRegistry) {
        registry.didChange = { [self] in publish($0) }
        registry.didAdd = { [self] in add($0) }
    }

    /// Takes the registry's plugins as they are now.
    func publish(_ entries: [PluginRegistry.Entry]) {
        let table = Dictionary(entries.map { ($0.descriptor.id, Self.target(of: $0)) }) { $1 }
        targets.withLock { $0 = table }
        targetsGeneration.add(1, ordering: .releasing)
    }

    /// Makes room for `count` more plugins, so that adding them grows no table.
    func reserveCapacity(_ count: Int) {
        targets.withLock { $0.reserveCapacity($0.count + count) }
    }

    /// Takes one plugin the registry just added.
    func add(_ entry: PluginRegistry.Entry) {
        let target = Self.target(of: entry)
        targets.withLock { $0[entry.descriptor.id] = target }
        targetsGeneration.add(1, ordering: .releasing)
    }

    /// Changes with every change of the plugins whose functions this invoker reaches.
    var generation: Int { targetsGeneration.load(ordering: .acquiring) }

    /// Where the functions of the registered plugin `entry` run.
    private static func target(of entry: PluginRegistry.Entry) -> Target {
        let place: Target.Place = switch entry.implementation {
        case .native(let definition, _): .here(definition.functions, label: entry.label)
        case .swift: .here(.none, label: entry.label)
        case .worker(let plugin):
            .worker(plugin.connection.takeUnretainedValue(), plugin: plugin.index, declarations: entry.functions)
        }
        return Target(place: place, refused: entry.refusedFunctions)
    }

    /// In a worker: plugin ids this worker does not hold are invoked through `proxy`, in the host.
    func relay(to proxy: HostInvokeProxy) {
        relay.withLock { $0 = proxy }
    }

    /// Function number `index` (in declaration order) of plugin `id`, held in this process, resolved
    /// for a call from here (a worker's `function-call` names it so); nil when there is none.
    func resolve(plugin id: PluginID, function index: Int) -> ResolvedFunction? {
        guard case .here(let functions, let label)? = targets.withLock({ $0[id]?.place }),
              functions.accepted.indices.contains(index) else { return nil }
        let function = functions.accepted[index]
        return ResolvedFunction(address: FunctionAddress(plugin: id, function: function.declaration.name),
                                declaration: function.declaration, signature: function.signature, place: .here(function, label: label))
    }

    /// A plugin's `invoke` of `text` (`plugin-id.function`), `depth` invocations deep, as the C ABI answers it.
    func invoke(_ text: String, _ arguments: [PluginValue], depth: UInt32, caller: Caller) -> Result<PluginValue, InvokeFailure> {
        let address: FunctionAddress
        do {
            address = try FunctionAddress(parsing: text)
        } catch {
            return .failure(InvokeFailure(error))
        }
        if let relay = relay(of: address) { return relay.invoke(address, arguments, depth: depth) }
        return call(address, arguments, depth: depth, caller: caller).mapError(InvokeFailure.init)
    }

    /// Whether an invocation of `text` with `arguments` from `caller` would be taken: its function
    /// found and the arguments fit its signature, as a call would check them.
    func check(_ text: String, _ arguments: [PluginValue], caller: Caller) -> Result<Void, InvokeFailure> {
        do throws(PluginCallError) {
            _ = try frame(FunctionAddress(parsing: text), arguments, caller: caller)
            return .success(())
        } catch {
            return .failure(InvokeFailure(error))
        }
    }

    /// A call of `address` from `caller` with `arguments`, its function resolved and the arguments
    /// checked and written as C; throws why it cannot be made.
    func frame(_ address: FunctionAddress, _ arguments: [PluginValue], caller: Caller) throws(PluginCallError) -> ArgumentFrame {
        try ArgumentFrame(for: try resolve(address, caller: caller).get(), arguments: arguments)
    }

    /// In a worker, the proxy that invokes `address` in the host: its plugin is not in this worker.
    /// Nil when the function is this invoker's to resolve.
    func relay(of address: FunctionAddress) -> HostInvokeProxy? {
        guard targets.withLock({ $0[address.plugin] }) == nil else { return nil }
        return relay.withLock { $0 }
    }

    /// Calls the function at `address` with `arguments`, `depth` invocations deep (0 for the host's own
    /// call). `onDispatchThread`: the host's own call, recorded in the host's record like every callback.
    func call(_ address: FunctionAddress, _ arguments: [PluginValue], depth: UInt32, caller: Caller,
              onDispatchThread: Bool = false, interrupted: () -> Bool = { false }) -> Result<PluginValue, PluginCallError> {
        resolve(address, caller: caller).flatMap { function in
            call(function, arguments, depth: depth, onDispatchThread: onDispatchThread, interrupted: interrupted)
        }
    }

    /// Where the function at `address` runs, with its declaration; or why `caller` cannot call it
    /// (an unknown plugin or function, a refused declaration, a `pointer` across processes).
    func resolve(_ address: FunctionAddress, caller: Caller) -> Result<ResolvedFunction, PluginCallError> {
        guard let target = targets.withLock({ $0[address.plugin] }) else { return .failure(.unknownPlugin(address)) }
        if let refusal = target.refused.first(where: { $0.name == address.function }) {
            return .failure(.refusedFunction(address, reason: refusal.reason))
        }
        let resolved: ResolvedFunction
        switch target.place {
        case .here(let functions, let label):
            guard let function = functions.named(address.function) else { return .failure(.unknownFunction(address)) }
            resolved = ResolvedFunction(address: address, declaration: function.declaration, signature: function.signature,
                                        place: .here(function, label: label))
            if caller == .here { return .success(resolved) }
        case .worker(let connection, let plugin, let declarations):
            guard let index = declarations.firstIndex(where: { $0.name == address.function }) else {
                return .failure(.unknownFunction(address))
            }
            if let refusal = connection.refusal(needing: WorkerMessage.Kind.functionCall.introducedInMinor,
                                                for: "a function call") {
                return .failure(.refusedFunction(address, reason: refusal))
            }
            guard let signature = try? FunctionSignature(parsing: declarations[index].signature) else {
                return .failure(.refusedFunction(address, reason: "its worker sent the signature "
                    + "\"\(declarations[index].signature)\", which does not parse"))
            }
            resolved = ResolvedFunction(address: address, declaration: declarations[index], signature: signature,
                                        place: .worker(connection, plugin: plugin, function: UInt32(index)))
        }
        if let reason = Self.pointerUse(resolved.signature, at: address) {
            return .failure(.crossesProcesses(address, reason: reason))
        }
        return .success(resolved)
    }

    /// Calls `function`, resolved by ``resolve(_:caller:)``, as ``call(_:_:depth:caller:onDispatchThread:interrupted:)``
    /// does, through the call site's per-call form: traced when the host traces its plugin.
    /// With `frame` (written for `function`, holding `arguments`), a call in this process
    /// takes its arguments from the frame, checked and converted when they were set.
    func call(_ function: ResolvedFunction, _ arguments: [PluginValue], frame: ArgumentFrame? = nil, depth: UInt32,
              onDispatchThread: Bool, interrupted: () -> Bool) -> Result<PluginValue, PluginCallError> {
        guard depth <= Self.depthLimit else { return .failure(.nestedTooDeep(function.address, limit: Int(Self.depthLimit))) }
        // A frame's values were held to the limit as they were set.
        if frame == nil, let refusal = ByteCount.togetherRefusal(of: arguments) {
            return .failure(.invalidArgument(function.address, position: refusal.position, reason: refusal.reason))
        }
        let direct = runDirectly(function, depth: depth, onDispatchThread: onDispatchThread) { code, record, label throws(PluginCallError) in
            if let frame { return try code.call(frame: frame.base, of: function, record: record, label: label) }
            return try code.call(arguments, of: function, record: record, label: label)
        }
        if let direct { return direct }
        return callSite.call(.function, of: function.address.plugin, traced: { CallTracer.call(function.address, arguments) },
                             answer: CallTracer.answer) {
            run(function, arguments, frame: frame, depth: depth, onDispatchThread: onDispatchThread, interrupted: interrupted)
        }.answer
    }

    /// Calls the function `frame` was written for with the arguments set in it, on the host's
    /// dispatch thread, as ``call(_:_:frame:depth:onDispatchThread:interrupted:)`` does, without
    /// reading the arguments' values unless the call is traced or goes to a worker.
    @inline(__always)
    func call(_ frame: ArgumentFrame, interrupted: () -> Bool) -> Result<PluginValue, PluginCallError> {
        runDirectly(frame.resolved, depth: 0, onDispatchThread: true) { code, record, label throws(PluginCallError) in
            try code.call(frame: frame.base, of: frame.resolved, record: record, label: label)
        } ?? call(frame.resolved, frame.values, frame: frame, depth: 0, onDispatchThread: true, interrupted: interrupted)
    }

    /// A call of `function` in this process, on the host's dispatch thread and not traced, is its
    /// run and nothing else (the call site's per-call form adds nothing to it then): `body` runs
    /// with the function borrowed, the dispatch thread's record and the plugin's label, `depth`
    /// invocations deep, and nothing on the way is reference counted. Nil for any other call.
    @inline(__always)
    private func runDirectly(_ function: ResolvedFunction, depth: UInt32, onDispatchThread: Bool,
                             _ body: (PluginFunction, CallRecord, UnsafePointer<pbf_label_t>) throws(PluginCallError) -> PluginValue)
        -> Result<PluginValue, PluginCallError>? {
        guard onDispatchThread, !callSite.decorators.traces, let here = function.here else { return nil }
        return here.code._withUnsafeGuaranteedRef { code in
            InvocationDepth.with(depth) { () -> Result<PluginValue, PluginCallError> in
                do throws(PluginCallError) {
                    return .success(try body(code, callSite.record, here.label))
                } catch {
                    return .failure(error)
                }
            }
        }
    }

    /// Runs `function` where it lives: here on the calling thread, or in its worker.
    private func run(_ function: ResolvedFunction, _ arguments: [PluginValue], frame: ArgumentFrame?, depth: UInt32,
                     onDispatchThread: Bool, interrupted: () -> Bool) -> Result<PluginValue, PluginCallError> {
        switch function.place {
        case .here(let code, let label):
            return withRecord(onDispatchThread: onDispatchThread) { record in
                InvocationDepth.with(depth) { () -> Result<PluginValue, PluginCallError> in
                    do throws(PluginCallError) {
                        if let frame {
                            return .success(try code.call(frame: frame.base, of: function, record: record, label: label))
                        }
                        return .success(try code.call(arguments, of: function, record: record, label: label))
                    } catch {
                        return .failure(error)
                    }
                }
            }
        case .worker(let connection, let plugin, let index):
            let address = function.address
            let request = WorkerMessage.functionCall(plugin: plugin, function: index, depth: depth,
                                                     arguments: arguments)
            switch connection.callFunction(request, timeout: callTimeout, interrupted: interrupted) {
            case .success(.value(let value)):
                // A worker's process is not trusted: a value its function could not return (another
                // kind, an integer out of range, a pointer) would mislead whoever reads it as declared.
                let declared = function.signature.result
                guard Self.isResult(value, of: declared) else {
                    return .failure(.invalidResult(address, reason: "its worker returned \(value.kind) \(value) for a function declared to return \(declared)"))
                }
                return .success(value)
            case .success(.error(let json)):
                return .failure(Self.workerError(json, calling: address))
            case .failure(let ending):
                let sentence = connection.blame(ending, who: address.plugin.rawValue, callback: "function \(address.function)").sentence
                if connection.markReported() {
                    log(PluginLogRecord(source: HostIdentity.name, plugin: nil, level: .error, message: sentence))
                }
                return .failure(.workerEnded(address, sentence: sentence))
            }
        }
    }

    /// The error, in `json`, that a worker sent for its call of `address`, when it is one the worker
    /// can have met: about that function, and not the end of a worker (only the host sees one; taken
    /// from a worker, it would have the host withdraw the library and keep its process). Otherwise an
    /// invalid result, which names neither another plugin nor what the worker wrote.
    static func workerError(_ json: [UInt8], calling address: FunctionAddress) -> PluginCallError {
        guard let error = try? JSONDecoder().decode(PluginCallError.self, from: Data(json)) else {
            return .invalidResult(address, reason: "its worker sent an error that does not decode")
        }
        if case .workerEnded = error {
            return .invalidResult(address, reason: "its worker sent an error that says a worker ended, which only the host can tell")
        }
        guard error.address == address else {
            return .invalidResult(address, reason: "its worker sent an error about another function")
        }
        return error
    }

    /// Whether `value` is one a function declared to return `type` can give from a worker: of the
    /// type's kind, an integer within its range, and never a pointer (no address crosses processes).
    static func isResult(_ value: PluginValue, of type: FunctionType) -> Bool {
        switch (type, value) {
        case (.void, .void), (.bool, .bool), (.float, .float), (.double, .double), (.string, .string), (.bytes, .bytes):
            return true
        case (_, .int(let number)):
            guard let (bits, signed) = type.integer, signed else { return false }
            return bits == 64 || (-(Int64(1) << (bits - 1)) ..< Int64(1) << (bits - 1)).contains(number)
        case (_, .uint(let number)):
            guard let (bits, signed) = type.integer, !signed else { return false }
            return bits == 64 || number < UInt64(1) << bits
        default:
            return false
        }
    }

    /// Runs `body` with the record the call is written in: the host's on its dispatch thread or
    /// within a callback it runs (whose entry the call names again when it returns), else one of
    /// the pool's.
    private func withRecord<Result>(onDispatchThread: Bool, _ body: (CallRecord) -> Result) -> Result {
        let dispatchRecord = callSite.record
        guard onDispatchThread || dispatchRecord.running(on: UInt(bitPattern: Int(bitPattern: pthread_self()))) != nil else {
            return CallRecordPool.with(body)
        }
        return body(dispatchRecord)
    }

    /// Why `signature` cannot be called from another process, or nil when it can: a `pointer` in it.
    private static func pointerUse(_ signature: FunctionSignature, at address: FunctionAddress) -> String? {
        if let position = signature.arguments.firstIndex(of: .pointer) {
            return "argument \(position + 1) is a pointer and \(address.plugin) runs in another process than the caller"
        }
        if signature.result == .pointer {
            return "the result is a pointer and \(address.plugin) runs in another process than the caller"
        }
        return nil
    }
}
