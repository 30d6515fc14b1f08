import PlugboardWorkerProtocol

/// The worker's side of its channel: its own requests to the host (`files`, `invoke`), waiting
/// for their replies in a ``PendingRequests`` table as the host's requests to a worker do, and
/// the reading of what the host sends (a ``ChannelReader``): a reply that comes while its
/// request spins is read by the thread that waits for it; everything else goes to `route`.
final class WorkerRequests: Sendable {
    private let channel: WorkerChannel
    private let pending = PendingRequests()
    private let reader: ChannelReader
    /// Where a message that is not a reply goes; it must not block (it runs while reading).
    private let route: @Sendable (ReceivedMessage) -> Void
    /// Runs once, when the channel ended, after every waiting request was woken.
    private let ended: @Sendable () -> Void

    init(channel: WorkerChannel, route: @escaping @Sendable (ReceivedMessage) -> Void, ended: @escaping @Sendable () -> Void) {
        self.channel = channel
        reader = ChannelReader(channel)
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
                                 readReady: { reader.readReady(handle, ended: lost) }, stop: { $0 })
        return try? reply.get()
    }

    /// Reads and routes the host's messages until the channel ends (the reader thread's work).
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

    /// The channel ended: every waiting request fails, then ``ended`` runs.
    private func lost(_ error: WorkerProtocolError) {
        pending.end(.lost("the host closed the channel"))
        ended()
    }
}
