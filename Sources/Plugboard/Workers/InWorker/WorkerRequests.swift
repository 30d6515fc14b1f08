import Dispatch
import PlugboardWorkerProtocol
import Synchronization

/// A worker's own requests to its host (`files`, `invoke`): numbered from one counter, so
/// every id is unique among the worker's requests still waiting, and each waits for the
/// reply the worker's reader thread hands over. Thread-safe: plugin threads send while the
/// reader thread delivers.
final class WorkerRequests: Sendable {
    private struct Pending {
        var nextRequest: UInt64 = 1
        var replies: [UInt64: WorkerMessage] = [:]
        var waiting: [UInt64: DispatchSemaphore] = [:]
        var closed = false
    }

    private let channel: WorkerChannel
    private let pending = Mutex(Pending())

    init(channel: WorkerChannel) {
        self.channel = channel
    }

    /// Sends `message` and waits for its reply; nil when the channel is closed or closes meanwhile.
    func send(_ message: WorkerMessage) -> WorkerMessage? {
        let signal = DispatchSemaphore(value: 0)
        let id = pending.withLock { pending -> UInt64? in
            guard !pending.closed else { return nil }
            defer { pending.nextRequest += 1 }
            pending.waiting[pending.nextRequest] = signal
            return pending.nextRequest
        }
        guard let id else { return nil }
        do {
            try channel.send(message, requestID: id)
        } catch {
            _ = pending.withLock { $0.waiting.removeValue(forKey: id) }
            return nil
        }
        signal.wait()
        return pending.withLock { $0.replies.removeValue(forKey: id) }
    }

    /// Hands the host's reply to the request waiting for it (on the worker's reader thread).
    func deliver(_ reply: WorkerMessage, to id: UInt64) {
        let signal = pending.withLock { pending -> DispatchSemaphore? in
            guard let signal = pending.waiting.removeValue(forKey: id) else { return nil }
            pending.replies[id] = reply
            return signal
        }
        signal?.signal()
    }

    /// Wakes every waiting request with nil: the channel is gone.
    func close() {
        let signals = pending.withLock { pending -> [DispatchSemaphore] in
            pending.closed = true
            defer { pending.waiting = [:] }
            return Array(pending.waiting.values)
        }
        signals.forEach { $0.signal() }
    }
}
