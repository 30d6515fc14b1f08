import CPlugboard
import PlugboardWorkerProtocol
import Synchronization

/// The worker's side of `invoke` for plugins it does not hold: the call becomes an
/// `invoke` request to the host, which runs the function in its process or forwards it
/// to the function's worker, and answers with `invokeReply`; a prepared invocation's
/// arguments are checked there (`checkInvoke`). The target is in another process, so a
/// `pointer` argument is refused here, before anything is sent. Thread-safe.
final class HostInvokeProxy: Sendable {
    private let requests: WorkerRequests
    /// The host's protocol minor, told at `hello`: an older host cannot check a prepared invocation.
    private let hostMinor = Atomic<UInt16>(0)

    init(requests: WorkerRequests) {
        self.requests = requests
    }

    /// Takes the host's protocol minor from its `hello`.
    func hostSpeaks(minor: UInt16) {
        hostMinor.store(minor, ordering: .relaxed)
    }

    /// The host's protocol minor, as its `hello` said (0 before it).
    var hostProtocolMinor: UInt16 { hostMinor.load(ordering: .relaxed) }

    /// Invokes `address` in the host, `depth` invocations deep, and waits for the answer.
    func invoke(_ address: FunctionAddress, _ arguments: [PluginValue], depth: UInt32) -> Result<PluginValue, InvokeFailure> {
        if let refusal = Self.refusal(of: arguments, for: address) { return .failure(refusal) }
        return answer(requests.send(.invoke(function: address.description, depth: depth, arguments: arguments)), address)
    }

    /// Whether the host would take an invocation of `address` with `arguments` (a host older than
    /// protocol 1.6 checks each call only).
    func check(_ address: FunctionAddress, _ arguments: [PluginValue]) -> Result<Void, InvokeFailure> {
        if let refusal = Self.refusal(of: arguments, for: address) { return .failure(refusal) }
        guard hostProtocolMinor >= WorkerMessage.Kind.checkInvoke.introducedInMinor else { return .success(()) }
        return answer(requests.send(.checkInvoke(function: address.description, arguments: arguments)), address).map { _ in }
    }

    /// The refusal of arguments that cannot go to the host: a `pointer`, which cannot reach another
    /// process, or strings and bytes that would not fit one frame together (sent, they would close
    /// the channel).
    private static func refusal(of arguments: [PluginValue], for address: FunctionAddress) -> InvokeFailure? {
        if let position = arguments.firstIndex(where: { if case .pointer = $0 { true } else { false } }) {
            return InvokeFailure(PluginCallError.crossesProcesses(address, reason:
                "argument \(position + 1) is a pointer and \(address.plugin) runs in another process than the caller"))
        }
        return ByteCount.togetherRefusal(of: arguments).map {
            InvokeFailure(PluginCallError.invalidArgument(address, position: $0.position, reason: $0.reason))
        }
    }

    /// The host's `invokeReply`, or the channel's end.
    private func answer(_ reply: WorkerMessage?, _ address: FunctionAddress) -> Result<PluginValue, InvokeFailure> {
        switch reply {
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
