import PlugboardWorkerProtocol
import Synchronization

/// The worker's side of its channel: its own requests to the host (`files`, `invoke`), waiting
/// for their replies in a ``PendingRequests`` table as the host's requests to a worker do, and
/// the reading of what the host sends.
///
/// One thread at a time reads and routes the host's messages, in order, under ``reading``: the
/// reader thread, or a request that waits for its reply and finds the host's messages there
/// first. A reply that comes while its request spins is so read by the thread that waits for it,
/// with no thread in between; everything else goes to `route`.
final class WorkerRequests: Sendable {
    private let channel: WorkerChannel
    private let pending = PendingRequests()
    /// Held by the thread that reads and routes the host's messages; true once the channel ended.
    private let reading = Mutex(false)
    /// Where a message that is not a reply goes; it must not block (it runs under ``reading``).
    private let route: @Sendable (ReceivedMessage) -> Void
    /// Runs once, when the channel ended, after every waiting request was woken.
    private let ended: @Sendable () -> Void

    init(channel: WorkerChannel, route: @escaping @Sendable (ReceivedMessage) -> Void, ended: @escaping @Sendable () -> Void) {
        self.channel = channel
        self.route = route
        self.ended = ended
    }

    /// Sends `message` and waits for its reply; nil when the channel is closed or closes meanwhile.
    func send(_ message: WorkerMessage) -> WorkerMessage? {
        guard case .success(let id) = pending.open(functionCall: false) else { return nil }
        do {
            try channel.send(message, requestID: id)
        } catch {
            pending.end(.lost("the worker cannot send to its host: \(error)"))
            return nil
        }
        let reply = pending.wait(for: id, timeout: nil, interrupted: { false },
                                 readReady: { _ = reading.withLockIfAvailable { handleReady(&$0) } }, stop: { $0 })
        return try? reply.get()
    }

    /// Reads and routes the host's messages until the channel ends (the reader thread's work):
    /// waits until the socket is readable, then handles what is there, unless a request waiting
    /// for its reply did so first.
    func readUntilEnd() {
        while true {
            do {
                try channel.waitUntilReadable()
            } catch {
                reading.withLock { finish(&$0) }
                return
            }
            guard reading.withLock({ handleReady(&$0) }) else { return }
        }
    }

    /// Handles every message there is now, in order: a reply to its request, the rest to
    /// ``route``; false when the channel ended, now or before (`over`). The caller holds ``reading``.
    private func handleReady(_ over: inout Bool) -> Bool {
        while !over {
            let received: ReceivedMessage
            do {
                guard let ready = try channel.receiveReady() else { return true }
                received = ready
            } catch {
                finish(&over)
                break
            }
            switch received.message {
            case .serviceReply, .invokeReply: _ = pending.answer(received.requestID, with: received.message)
            default: route(received)
            }
        }
        return false
    }

    /// The channel ended: every waiting request fails, then ``ended`` runs, once.
    private func finish(_ over: inout Bool) {
        guard !over else { return }
        over = true
        pending.end(.lost("the host closed the channel"))
        ended()
    }
}
