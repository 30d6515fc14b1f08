import CPlugboard
import PlugboardFiles
import PlugboardWorkerProtocol

/// The files service as a worker reaches it: each call a plugin makes becomes a `files`
/// request to the host, which runs it on its own ``FilesService`` (the same facade, container
/// and checks as in process) and answers with a `serviceReply`. Thread-safe: plugin threads
/// call it while the worker's reader thread delivers the replies.
final class HostFilesProxy: Sendable {
    private let requests: WorkerRequests
    /// The most bytes of paths and data one request sends: what a frame carries, less room for the
    /// request's other fields.
    private static let largestRequest = WireFormat.maximumPayloadLength - 1024

    init(requests: WorkerRequests) {
        self.requests = requests
    }

    /// Sends `request` to the host and waits for its reply; a lost channel answers PB_ERR_UNAVAILABLE.
    /// Paths so long that they and the data (at most ``FilesAccess/writeLimit``, which ``FilesTable``
    /// checks before it copies the bytes) pass one frame are refused here, as invalid paths (a path
    /// merely past the container's limit goes to the host, whose message says more).
    func call(_ request: FilesRequest) -> FilesOutcome {
        let longest = max(request.path.utf8.count, request.secondPath.utf8.count)
        if request.path.utf8.count + request.secondPath.utf8.count + request.data.count > Self.largestRequest {
            return FilesOutcome(status: PB_ERR_INVALID_PATH, message: "\(request.operation.name): the path is \(longest) bytes long; "
                                + "the limit is \(ContainerPathLimits.pathBytes)")
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
