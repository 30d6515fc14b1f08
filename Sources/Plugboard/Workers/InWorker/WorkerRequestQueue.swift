import Dispatch
import PlugboardWorkerProtocol
import Synchronization

/// Where the worker's main thread takes the host's requests from, in order: the channel itself
/// (``ChannelRequests``, a host of protocol 1.7 or later) or what the reader thread queued
/// (``WorkerInbox``, an older host, which sends everything on the one channel).
protocol WorkerRequestQueue: Sendable {
    /// The next request, waiting for it (for `idleAfter` at most, when given).
    func take(idleAfter limit: Duration?) -> WorkerRequestTaken
    /// Takes a message the reader thread read that is not a reply: true when it is handled (queued
    /// for the main thread, or refused), false for a function call to run on a thread of its own.
    func offer(_ received: ReceivedMessage) -> Bool
    /// Ends the queue: ``take(idleAfter:)`` gives `.closed` once it is empty; `malformed` when the host sent
    /// a message the worker cannot run.
    func close(malformed: Bool)
    /// Whether the queue was closed because the host sent a message the worker cannot run.
    var malformed: Bool { get }
}

/// What ``WorkerRequestQueue/take(idleAfter:)`` gives.
enum WorkerRequestTaken {
    /// The next request.
    case message(ReceivedMessage)
    /// None came for the time asked.
    case idle
    /// The queue ended: no more requests come.
    case closed
}

/// The requests of a host of protocol 1.7 or later, read by the main thread from the channel: all
/// that comes there is the main thread's (a function call only while it is idle), so a request
/// reaches the thread that serves it with no thread in between. What runs at any time comes on
/// the concurrent channel, which the reader thread reads.
final class ChannelRequests: WorkerRequestQueue {
    private let channel: WorkerChannel
    private let broken = Atomic(false)

    init(_ channel: WorkerChannel) {
        self.channel = channel
    }

    func take(idleAfter limit: Duration?) -> WorkerRequestTaken {
        do throws(WorkerProtocolError) {
            return try channel.receive(idleLimit: limit).map(WorkerRequestTaken.message) ?? .idle
        } catch {
            if error != .closedByPeer { broken.store(true, ordering: .relaxed) }
            return .closed
        }
    }

    /// Only function calls and replies may come on the concurrent channel: anything else is malformed.
    func offer(_ received: ReceivedMessage) -> Bool {
        guard case .functionCall = received.message else {
            close(malformed: true)
            return true
        }
        return false
    }

    /// Shuts the channel down, which wakes the main thread in ``take(idleAfter:)``.
    func close(malformed: Bool) {
        if malformed { broken.store(true, ordering: .relaxed) }
        try? channel.shutdown()
    }

    var malformed: Bool { broken.load(ordering: .relaxed) }
}

/// The requests of a host older than protocol 1.7, which sends everything on the one channel: the
/// reader thread queues them for the main thread, in order, and hands it a function call when it
/// waits with nothing queued.
final class WorkerInbox: WorkerRequestQueue {
    private let queue = Mutex<(messages: [ReceivedMessage], closed: Bool, waiting: Bool, malformed: Bool)>(([], false, false, false))
    private let available = DispatchSemaphore(value: 0)

    /// Queues `received` for the main thread; a function call only when the main thread waits with
    /// nothing queued, so it takes this call next (false otherwise: nothing queued).
    func offer(_ received: ReceivedMessage) -> Bool {
        let queued = queue.withLock { queue -> Bool in
            if case .functionCall = received.message, !(queue.messages.isEmpty && queue.waiting) { return false }
            queue.messages.append(received)
            return true
        }
        if queued { available.signal() }
        return queued
    }

    func close(malformed: Bool) {
        queue.withLock { queue in
            queue.closed = true
            queue.malformed = queue.malformed || malformed
        }
        available.signal()
    }

    var malformed: Bool { queue.withLock { $0.malformed } }

    func take(idleAfter limit: Duration?) -> WorkerRequestTaken {
        let deadline = limit.map { DispatchTime.now() + .nanoseconds(Int(clamping: $0.nanoseconds)) }
        while true {
            let next = queue.withLock { queue -> (ReceivedMessage?, Bool) in
                queue.waiting = queue.messages.isEmpty
                return queue.messages.isEmpty ? (nil, queue.closed) : (queue.messages.removeFirst(), false)
            }
            if let message = next.0 { return .message(message) }
            if next.1 { return .closed }
            guard let deadline else {
                available.wait()
                continue
            }
            guard available.wait(timeout: deadline) == .timedOut else { continue }
            // No longer waiting: a function call that comes while the caller is busy gets a thread of its own.
            let idle = queue.withLock { queue -> Bool in
                guard queue.messages.isEmpty, !queue.closed else { return false }
                queue.waiting = false
                return true
            }
            if idle { return .idle }
        }
    }
}
