import Glibc
import PlugboardWorkerProtocol
import Synchronization

/// The reading side of a worker channel, at either end: one thread at a time reads what the other
/// side sent and handles it, in order, under one lock. That is the end's reader thread, which
/// waits for the socket (``readUntilEnd(_:ended:)``), or a request that waits for its reply and
/// finds the messages there first (``readReady(_:ended:)``, from ``PendingRequests``' spin), so
/// that a reply reaches the thread that waits for it with no thread in between.
final class ChannelReader: Sendable {
    /// How often the reader thread yields to a waiting request that holds the lock before it waits for it.
    private static let yieldsBeforeWaiting = 64
    /// The most messages a waiting request handles at a time (``readReady(_:ended:)``): a side that
    /// sends faster than they are handled must not keep the request from its deadline.
    private static let messagesPerTurn = 64
    private let channel: WorkerChannel
    /// Held by the thread that reads; true once the channel ended or a message ended it: nothing
    /// after that is handled (a reply behind a refused frame does not answer its request).
    private let over = Mutex(false)

    init(_ channel: WorkerChannel) {
        self.channel = channel
    }

    /// Handles what is there now, up to ``messagesPerTurn`` messages, unless another thread is
    /// reading: `handle` takes each message and says false when it ended the connection; `ended` is
    /// told, once, why the channel did.
    func readReady(_ handle: (ReceivedMessage) -> Bool, ended: (WorkerProtocolError) -> Void) {
        _ = over.withLockIfAvailable { handleReady(&$0, atMost: Self.messagesPerTurn, handle, ended) }
    }

    /// Reads until the channel ends (the reader thread's work): waits until the socket is readable,
    /// then handles what is there, as ``readReady(_:ended:)`` does, unless a waiting request did so first.
    func readUntilEnd(_ handle: (ReceivedMessage) -> Bool, ended: (WorkerProtocolError) -> Void) {
        while true {
            do {
                try channel.waitUntilReadable()
            } catch {
                over.withLock { over in
                    if !over { ended(error) }
                    over = true
                }
                return
            }
            guard readYielding(handle, ended) else { return }
        }
    }

    /// Handles all that is there, as ``readReady(_:ended:)`` does, after the socket became readable: a
    /// waiting request that holds the lock is reading it, so this thread yields to it until it took
    /// the bytes (it does not block on the lock, which would make the request wake it as it lets go),
    /// and blocks on the lock only when the request is long at it. False when the connection ended.
    private func readYielding(_ handle: (ReceivedMessage) -> Bool, _ ended: (WorkerProtocolError) -> Void) -> Bool {
        for _ in 0..<Self.yieldsBeforeWaiting {
            if let goOn = over.withLockIfAvailable({ handleReady(&$0, atMost: .max, handle, ended) }) { return goOn }
            sched_yield()
            guard (try? channel.isReadableNow()) ?? true else { return true }
        }
        return over.withLock { handleReady(&$0, atMost: .max, handle, ended) }
    }

    /// Handles the messages there are now, in order, `limit` at most; false when the connection
    /// ended, now or before.
    private func handleReady(_ over: inout Bool, atMost limit: Int, _ handle: (ReceivedMessage) -> Bool,
                             _ ended: (WorkerProtocolError) -> Void) -> Bool {
        var left = limit
        while !over {
            guard left > 0 else { return true }
            left -= 1
            let received: ReceivedMessage
            do {
                guard let ready = try channel.receiveReady() else { return true }
                received = ready
            } catch {
                ended(error)
                over = true
                break
            }
            over = !handle(received)
        }
        return false
    }
}
