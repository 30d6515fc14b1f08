import CPlugboard
import Synchronization

/// A plugin's invocation of one function prepared once (`pb_host_t.prepare_invoke`) and made
/// many times (`call_prepared`): the function is resolved and its arguments checked and written
/// as C once, into a frame the calls reuse, as ``PreparedFunctionCall`` does for the host.
/// A function whose plugin is not in this worker is checked in the host when the invocation is
/// prepared and when an argument is set, then invoked there with the arguments as set, and
/// checked there again on every call.
///
/// Thread-safe, as `invoke` is: calls may run at once, on several threads or nested, each with
/// the target it took; an argument is set only while none runs (it may be in use).
final class PreparedInvocation: Sendable {
    /// The function as the plugin named it, "plugin-id.function".
    let function: String
    private let address: FunctionAddress

    /// Where the calls go: a frame written for the resolved function, or, in a worker, the host.
    private enum Target: @unchecked Sendable {
        case resolved(ArgumentFrame)
        case relayed(HostInvokeProxy, arguments: [PluginValue])

        var arguments: [PluginValue] {
            switch self {
            case .resolved(let frame): frame.values
            case .relayed(_, let arguments): arguments
            }
        }
    }

    private struct State: @unchecked Sendable {
        /// The invoker the target was resolved by, and its generation then.
        var invoker: FunctionInvoker
        var generation: Int
        var target: Target
        /// Calls in progress.
        var running = 0
    }

    private let state: Mutex<State>

    /// Resolves `function` through `invoker` and checks `arguments` against its signature; throws
    /// what an `invoke` with them would, short of running the function.
    init(_ function: String, arguments: [PluginValue], invoker: FunctionInvoker) throws(InvokeFailure) {
        do {
            address = try FunctionAddress(parsing: function)
        } catch {
            throw InvokeFailure(error)
        }
        self.function = function
        let generation = invoker.generation
        let target = try Self.target(address, arguments, invoker)
        state = Mutex(State(invoker: invoker, generation: generation, target: target))
    }

    /// Checks `value` against argument `index` (0-based) and sets it for the next calls; on a
    /// throw the argument keeps its value. Refused while a call runs.
    func set(_ index: Int, to value: PluginValue) throws(InvokeFailure) {
        let target = try state.withLock { state throws(InvokeFailure) in
            guard state.running == 0 else { throw callRunning }
            guard case .resolved(let frame) = state.target else { return state.target }
            do throws(PluginCallError) {
                try frame.set(index, to: value)
            } catch {
                throw InvokeFailure(error)
            }
            return state.target
        }
        guard case .relayed(let relay, var arguments) = target else { return }
        guard arguments.indices.contains(index) else {
            throw InvokeFailure(PluginCallError.invalidArgument(address, position: index + 1, reason:
                "there is no such argument: it was prepared with \(arguments.count)"))
        }
        arguments[index] = value
        // Checked in the host, outside the lock: calls meanwhile go on with the arguments as they were.
        try relay.check(address, arguments).get()
        try state.withLock { state throws(InvokeFailure) in
            guard state.running == 0 else { throw callRunning }
            state.target = .relayed(relay, arguments: arguments)
        }
    }

    /// The refusal of a `set` while a call runs.
    private var callRunning: InvokeFailure {
        InvokeFailure(status: PB_ERR_WRONG_STATE, message: "\(function): a call of it is running, which reads its arguments")
    }

    /// Calls the function with the arguments as set, `depth` invocations deep, through `invoker`
    /// (the one that serves the library now): resolved again when it or its plugins changed.
    func call(through invoker: FunctionInvoker, depth: UInt32) -> Result<PluginValue, InvokeFailure> {
        let taken = state.withLock { state -> Result<Target, InvokeFailure> in
            if state.invoker !== invoker || state.generation != invoker.generation {
                // Read before resolving: a change meanwhile makes the next call resolve again.
                let generation = invoker.generation
                do throws(InvokeFailure) {
                    state.target = try Self.target(address, state.target.arguments, invoker)
                } catch {
                    return .failure(error)
                }
                state.invoker = invoker
                state.generation = generation
            }
            state.running += 1
            return .success(state.target)
        }
        let target: Target
        switch taken {
        case .success(let taken): target = taken
        case .failure(let failure): return .failure(failure)
        }
        defer { state.withLock { $0.running -= 1 } }
        switch target {
        case .resolved(let frame):
            return invoker.call(frame.resolved, frame.values, frame: frame, depth: depth, onDispatchThread: false,
                                interrupted: { false }).mapError(InvokeFailure.init)
        case .relayed(let relay, let arguments):
            return relay.invoke(address, arguments, depth: depth)
        }
    }

    /// Where calls of `address` with `arguments` go through `invoker`, or why they cannot.
    private static func target(_ address: FunctionAddress, _ arguments: [PluginValue],
                               _ invoker: FunctionInvoker) throws(InvokeFailure) -> Target {
        if let relay = invoker.relay(of: address) {
            try relay.check(address, arguments).get()
            return .relayed(relay, arguments: arguments)
        }
        do throws(PluginCallError) {
            return .resolved(try invoker.frame(address, arguments, caller: .here))
        } catch {
            throw InvokeFailure(error)
        }
    }
}
