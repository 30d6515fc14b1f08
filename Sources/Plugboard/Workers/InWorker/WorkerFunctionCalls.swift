import Foundation
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

    /// Runs one `function-call`, `depth` invocations deep, on the calling thread, and sends its
    /// `function-result`: the value or the typed error. A plugin or function number the worker
    /// does not have is malformed.
    func run(_ received: ReceivedMessage) throws(WorkerProtocolError) {
        guard case .functionCall(let plugin, let function, let depth, let arguments) = received.message else { return }
        guard let id = pluginIDs.withLock({ $0.indices.contains(Int(plugin)) ? $0[Int(plugin)] : nil }) else {
            throw .malformed(field: "function-call.plugin", cause: .invalidValue(UInt64(plugin)))
        }
        guard let address = invoker.address(plugin: id, function: Int(function)) else {
            throw .malformed(field: "function-call.function", cause: .invalidValue(UInt64(function)))
        }
        let result: FunctionResult = switch invoker.call(address, arguments, depth: depth,
                                                         caller: .here) {
        case .success(let value): .value(value)
        case .failure(let error): .error(json: (try? JSONEncoder().encode(error)).map(Array.init) ?? [])
        }
        try channel.send(.functionResult(result), requestID: received.requestID)
    }
}
