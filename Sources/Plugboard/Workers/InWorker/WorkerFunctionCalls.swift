#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PlugboardSystem
import PlugboardWorkerProtocol
import Synchronization

/// How a worker runs the host's `function-call`s: on any thread (the main thread when it
/// is idle, else one of their own), through the worker's function engine, answering each with
/// its `function-result`. A crash in the function ends the worker, which the host reports
/// as the function's crash.
final class WorkerFunctionCalls: Sendable {
    private let channel: WorkerChannel
    private let invoker: FunctionInvoker
    /// The ids of the worker's plugins by plugin number.
    private let pluginIDs = Mutex<[PluginID]>([])

    init(channel: WorkerChannel, invoker: FunctionInvoker) {
        self.channel = channel
        self.invoker = invoker
    }

    /// The plugins by number, after a load or an unload.
    func number(_ ids: [PluginID]) {
        pluginIDs.withLock { $0 = ids }
    }

    /// Runs one `function-call` on a thread of its own (the main thread is busy), or answers it as
    /// refused when no thread can start. A call the worker cannot run is malformed: the worker
    /// ends, as on the main thread.
    func runOnThreadOfItsOwn(_ received: ReceivedMessage, queue: any WorkerRequestQueue) {
        let runOrEnd: @Sendable (String?) -> Void = { [self] refusal in
            do throws(WorkerProtocolError) {
                try run(received, refusal: refusal)
            } catch {
                queue.close(malformed: true)
                try? channel.shutdown()
            }
        }
        do {
            try startDetachedThread { runOrEnd(nil) }
        } catch {
            runOrEnd("the worker cannot start a thread for it (\(error))")
        }
    }

    /// Runs one `function-call`, `depth` invocations deep, on the calling thread, and sends its
    /// `function-result`: the value or the typed error; with a `refusal`, the function is not
    /// called and the result says why. A plugin or function number the worker does not have is malformed.
    func run(_ received: ReceivedMessage, refusal: String? = nil) throws(WorkerProtocolError) {
        guard case .functionCall(let plugin, let function, let depth, let arguments) = received.message else { return }
        guard let id = pluginIDs.withLock({ $0.indices.contains(Int(plugin)) ? $0[Int(plugin)] : nil }) else {
            throw .malformed(field: "function-call.plugin", cause: .invalidValue(UInt64(plugin)))
        }
        guard let resolved = invoker.resolve(plugin: id, function: Int(function)) else {
            throw .malformed(field: "function-call.function", cause: .invalidValue(UInt64(function)))
        }
        let outcome = refusal.map { .failure(.refusedFunction(resolved.address, reason: $0)) }
            ?? invoker.call(resolved, arguments, depth: depth, onDispatchThread: false, interrupted: { false })
        let result: FunctionResult = switch outcome {
        case .success(let value): .value(value)
        case .failure(let error): .error(json: (try? JSONEncoder().encode(error)).map(Array.init) ?? [])
        }
        try channel.send(.functionResult(result), requestID: received.requestID)
    }
}
