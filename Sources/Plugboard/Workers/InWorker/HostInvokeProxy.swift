import CPlugboard
import PlugboardWorkerProtocol

/// The worker's side of `invoke` for plugins it does not hold: the call becomes an
/// `invoke` request to the host, which runs the function in its process or forwards it
/// to the function's worker, and answers with `invokeReply`. The target is in another
/// process, so a `pointer` argument is refused here, before anything is sent. Thread-safe.
final class HostInvokeProxy: Sendable {
    private let requests: WorkerRequests

    init(requests: WorkerRequests) {
        self.requests = requests
    }

    /// Invokes `address` in the host, `depth` invocations deep, and waits for the answer.
    func invoke(_ address: FunctionAddress, _ arguments: [PluginValue], depth: UInt32) -> Result<PluginValue, InvokeFailure> {
        if let position = arguments.firstIndex(where: { if case .pointer = $0 { true } else { false } }) {
            return .failure(InvokeFailure(PluginCallError.crossesProcesses(address, reason:
                "argument \(position + 1) is a pointer and \(address.plugin) runs in another process than the caller")))
        }
        switch requests.send(.invoke(function: address.description, depth: depth, arguments: arguments)) {
        case .invokeReply(.value(let value))?:
            return .success(value)
        case .invokeReply(.failure(let status, let message))?:
            return .failure(InvokeFailure(status: status, message: message))
        default:
            return .failure(InvokeFailure(status: PB_ERR_UNAVAILABLE,
                                          message: "\(address): the host cannot be reached: the worker's channel is closed"))
        }
    }
}
