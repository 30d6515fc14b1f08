import CPlugboard
import Dispatch
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

    private struct Pending {
        var nextRequest: UInt64 = 1
        var replies: [UInt64: Reply] = [:]
        var waiting: [UInt64: DispatchSemaphore] = [:]
        var closed = false
    }

    private let channel: WorkerChannel
    private let pending = Mutex(Pending())
    /// The message of each thread's last failed call, for `last_error`.
    private let lastErrors = Mutex<[UInt: String]>([:])

    init(channel: WorkerChannel) {
        self.channel = channel
    }

    /// Sends one call to the host and waits for its reply; a lost channel answers PB_ERR_UNAVAILABLE.
    func call(_ operation: FilesOperation, path: String, secondPath: String = "", data: [UInt8] = [],
              flags: UInt32 = 0) -> Reply {
        let signal = DispatchSemaphore(value: 0)
        let id = pending.withLock { pending -> UInt64? in
            guard !pending.closed else { return nil }
            defer { pending.nextRequest += 1 }
            pending.waiting[pending.nextRequest] = signal
            return pending.nextRequest
        }
        guard let id else { return Self.unavailable }
        do {
            try channel.send(.files(operation: operation, path: path, secondPath: secondPath, data: data, flags: flags),
                             requestID: id)
        } catch {
            _ = pending.withLock { $0.waiting.removeValue(forKey: id) }
            return Self.unavailable
        }
        signal.wait()
        let reply = pending.withLock { $0.replies.removeValue(forKey: id) } ?? Self.unavailable
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

    /// Hands the host's reply to the call waiting for it (on the worker's reader thread).
    func deliver(_ reply: Reply, to id: UInt64) {
        let signal = pending.withLock { pending -> DispatchSemaphore? in
            guard let signal = pending.waiting.removeValue(forKey: id) else { return nil }
            pending.replies[id] = reply
            return signal
        }
        signal?.signal()
    }

    /// Wakes every waiting call with PB_ERR_UNAVAILABLE: the channel is gone.
    func close() {
        let signals = pending.withLock { pending -> [DispatchSemaphore] in
            pending.closed = true
            defer { pending.waiting = [:] }
            return Array(pending.waiting.values)
        }
        signals.forEach { $0.signal() }
    }

    private static let unavailable = Reply(status: Int32(PB_ERR_UNAVAILABLE), payload: [],
                                           message: "the host's files service cannot be reached: the worker's channel is closed")
}
