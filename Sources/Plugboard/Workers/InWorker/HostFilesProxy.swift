import CPlugboard
import PlugboardWorkerProtocol

/// The files service as a worker reaches it: each call a plugin makes becomes a `files`
/// request to the host, which runs it on its own ``FilesService`` (the same facade, container
/// and checks as in process) and answers with a `serviceReply`. Thread-safe: plugin threads
/// call it while the worker's reader thread delivers the replies.
final class HostFilesProxy: Sendable {
    private let requests: WorkerRequests

    init(requests: WorkerRequests) {
        self.requests = requests
    }

    /// Sends `request` to the host and waits for its reply; a lost channel answers PB_ERR_UNAVAILABLE.
    /// A write larger than one request carries is refused here: sent, it would close the channel.
    func call(_ request: FilesRequest) -> FilesOutcome {
        guard request.data.count <= ByteCount.valueLimit else {
            return FilesOutcome(status: PB_ERR_INVALID_ARGUMENT, message: "write '\(request.path)': size is "
                                + ByteCount.overLimit(request.data.count, limit: ByteCount.valueLimit) + " (what one request from a worker carries)")
        }
        return switch requests.send(.files(operation: request.operation, path: request.path, secondPath: request.secondPath,
                                    data: request.data, flags: request.flags)) {
        case .serviceReply(let status, let payload, let message)?:
            FilesOutcome(status: status, payload: payload, message: message)
        default:
            FilesOutcome(status: PB_ERR_UNAVAILABLE,
                         message: "the host's files service cannot be reached: the worker's channel is closed")
        }
    }
}
