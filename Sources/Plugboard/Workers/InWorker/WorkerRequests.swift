import CPlugboard
import PlugboardWorkerProtocol

/// The worker's own requests to the host (`files`, `invoke`), sent on its channel and waiting for
/// their replies in a ``PendingRequests`` table as the host's requests to a worker do, and the
/// reading of the socket the replies come on (a ``ChannelReader``: the concurrent channel, or the
/// one channel of an older host): a reply that comes while its request spins is read by the
/// thread that waits for it; everything else goes to `route`.
final class WorkerRequests: Sendable {
    private let channel: WorkerChannel
    private let pending = PendingRequests()
    private let reader: ChannelReader
    /// Where a message that is not a reply goes; it must not block (it runs while reading).
    private let route: @Sendable (ReceivedMessage) -> Void
    /// Runs once, when the channel ended, after every waiting request was woken.
    private let ended: @Sendable () -> Void

    init(sending channel: WorkerChannel, reading: WorkerChannel, route: @escaping @Sendable (ReceivedMessage) -> Void,
         ended: @escaping @Sendable () -> Void) {
        self.channel = channel
        reader = ChannelReader(reading)
        self.route = route
        self.ended = ended
    }

    /// Sends `message` and waits for its reply; nil when the channel is closed or closes meanwhile.
    /// A message too large for one frame, refused before any byte is sent, is answered here as the
    /// host would refuse it (``refusal(of:_:)``): the channel stays as it was.
    func send(_ message: WorkerMessage) -> WorkerMessage? {
        guard case .success(let request) = pending.open(functionCall: false) else { return nil }
        do throws(WorkerProtocolError) {
            try channel.send(message, requestID: request.id)
        } catch .frameTooLarge(let length, let maximum) {
            pending.cancel(request)
            return Self.refusal(of: message, "the request is \(length) bytes, over the \(maximum) one frame carries")
        } catch {
            pending.end(.lost("the worker cannot send to its host: \(error)"))
            return nil
        }
        let reply = pending.wait(for: request, timeout: nil, interrupted: { false },
                                 readReady: { reader.readReady(handle, ended: lost) }, stop: { $0 })
        return try? reply.get()
    }

    /// The reply the host would give to `message`, refused for `reason` with PB_ERR_INVALID_ARGUMENT;
    /// nil for a message that takes no such reply.
    static func refusal(of message: WorkerMessage, _ reason: String) -> WorkerMessage? {
        switch message {
        case .files(let operation, _, _, _, _): .serviceReply(status: PB_ERR_INVALID_ARGUMENT, payload: [], message: "\(operation.name): \(reason)")
        case .invoke(let function, _, _), .checkInvoke(let function, _): .invokeReply(.failure(status: PB_ERR_INVALID_ARGUMENT, message: "\(function): \(reason)"))
        default: nil
        }
    }

    /// Reads and routes the host's messages until their socket ends (the reader thread's work).
    func readUntilEnd() {
        reader.readUntilEnd(handle, ended: lost)
    }

    /// Hands a reply to its request and the rest to ``route``.
    private func handle(_ received: ReceivedMessage) -> Bool {
        switch received.message {
        case .serviceReply, .invokeReply: _ = pending.answer(received.requestID, with: received.message)
        default: route(received)
        }
        return true
    }

    /// The socket ended: every waiting request fails, then ``ended`` runs.
    private func lost(_ error: WorkerProtocolError) {
        pending.end(.lost("the host closed the channel"))
        ended()
    }
}
