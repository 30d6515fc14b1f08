import CPlugboard
import Glibc
import PlugboardWorkerProtocol
import Synchronization

/// The worker's side of the files service: each call a plugin makes becomes a
/// `files` request to the host, which runs it on its own files service (the
/// same facade, container and checks as in process) and answers with a
/// `serviceReply`. Thread-safe: plugin threads call it while the worker's
/// reader thread delivers the replies.
final class RemoteFiles: Sendable {
    /// What the host answered.
    struct Reply {
        let status: Int32
        let payload: [UInt8]
        let message: String
    }

    private let requests: WorkerRequests
    /// The message of each thread's last failed call, for `last_error`.
    private let lastErrors = Mutex<[UInt: String]>([:])

    init(requests: WorkerRequests) {
        self.requests = requests
    }

    /// Sends one call to the host and waits for its reply; a lost channel answers PB_ERR_UNAVAILABLE.
    func call(_ operation: FilesOperation, path: String, secondPath: String = "", data: [UInt8] = [],
              flags: UInt32 = 0) -> Reply {
        let reply: Reply = switch requests.send(.files(operation: operation, path: path, secondPath: secondPath,
                                                        data: data, flags: flags)) {
        case .serviceReply(let status, let payload, let message)?: Reply(status: status, payload: payload, message: message)
        default: Self.unavailable
        }
        let thread = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
        lastErrors.withLock { $0[thread] = reply.status == PB_OK ? nil : reply.message }
        return reply
    }

    /// Records `message` as the calling thread's last failure, for a call refused before it was sent.
    func refuse(_ message: String) {
        let thread = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
        lastErrors.withLock { $0[thread] = message }
    }

    /// The message of the calling thread's last failed call ("" after a success).
    var lastError: String {
        let thread = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
        return lastErrors.withLock { $0[thread] } ?? ""
    }

    private static let unavailable = Reply(status: Int32(PB_ERR_UNAVAILABLE), payload: [],
                                           message: "the host's files service cannot be reached: the worker's channel is closed")
}
