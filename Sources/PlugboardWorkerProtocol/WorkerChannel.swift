import Glibc
import PlugboardSystem
import Synchronization
import SystemPackage

/// One end of a host–worker connection over a blocking `SOCK_STREAM` socket
/// (one end of `socketpair(AF_UNIX, SOCK_STREAM)`), which the channel owns and
/// closes at ``close()`` or when it is released.
///
/// Thread rule: any thread may `send` at any time (a lock keeps each frame
/// whole); one thread at a time receives (``receive()`` or ``receiveReady()``;
/// ``waitUntilReadable()`` may run beside them). A broken peer never raises SIGPIPE:
/// sends use `MSG_NOSIGNAL` and report `closedByPeer`.
public final class WorkerChannel: Sendable {
    /// Past this capacity the send buffer is dropped after its frame, so one
    /// large frame does not pin its memory for the channel's life.
    private static let retainedSendCapacity = 1 << 20

    /// The socket; owned by the channel, open until ``close()``.
    public let descriptor: FileDescriptor
    private let sender = Mutex(WireEncoder())
    private let receiver = Mutex(ReceiveBuffer())
    /// Set by ``close()`` while it holds both locks; read under either, so no send,
    /// receive or shutdown uses the descriptor's number after it was closed (and maybe reused).
    private let closed = Atomic(false)
    /// How long a send may wait with the peer taking no byte before the channel is given up
    /// (``WorkerProtocolError/stalled(_:)``); nil waits as long as it takes.
    private let stallLimit: Duration?
    /// How long the send that gave up on the peer waited, in nanoseconds (``stall``); 0 before.
    private let gaveUpAfter = Atomic<Int64>(0)

    /// Takes ownership of `descriptor`, a connected stream socket in blocking mode. With a
    /// `stallLimit`, a send the peer takes no byte of for that long shuts the channel down and
    /// throws, so a peer that stops reading cannot hold a sender (or the senders behind it) forever.
    public init(descriptor: FileDescriptor, stallLimit: Duration? = nil) {
        self.descriptor = descriptor
        self.stallLimit = stallLimit
    }

    deinit {
        if !closed.load(ordering: .relaxed) { try? descriptor.close() }
    }

    /// Whether ``close()`` ran.
    public var isClosed: Bool { closed.load(ordering: .relaxed) }

    /// `stalled` once a send gave up on a peer that read nothing: what ended the channel, whatever
    /// later calls on it see (the peer may die afterwards, of the shutdown itself); nil before.
    public var stall: WorkerProtocolError? {
        let waited = gaveUpAfter.load(ordering: .acquiring)
        return waited == 0 ? nil : .stalled(.nanoseconds(waited))
    }

    /// Closes the socket now, rather than when the channel is released: the peer reads end of
    /// stream, and every later send, receive or shutdown throws `closedByPeer`. Call it when no
    /// thread is in ``receive()`` (it waits for that lock): from the receiving thread, after its
    /// last receive. Closing twice does nothing.
    public func close() {
        sender.withLock { encoder in
            receiver.withLock { buffer in
                guard !closed.load(ordering: .relaxed) else { return }
                closed.store(true, ordering: .relaxed)
                try? descriptor.close()
                // Every use of the two buffers throws once closed: their memory goes now, as a closed
                // channel may be kept for long (a replaced worker's connection is).
                encoder = WireEncoder(capacity: 0)
                buffer.release()
            }
        }
    }

    /// Sends one message as one frame; frames of concurrent senders never interleave. With
    /// `patience`, this send waits that long (instead of the channel's stall limit) for a peer that
    /// takes no byte: a peer that reads only between requests is busy while one runs. While it
    /// waits, it asks `interrupted` every ``interruptionCheckInterval``, and gives up when told to.
    ///
    /// Throws `frameTooLarge` or `malformed` (a request id against the kind's
    /// rule) before writing anything; `closedByPeer` when the peer is gone; `interrupted` when it
    /// gave up (the channel is then shut down).
    public func send(_ message: WorkerMessage, requestID: UInt64 = 0, patience: Duration? = nil,
                     interrupted: () -> Bool = { false }) throws(WorkerProtocolError) {
        try sender.withLock { encoder throws(WorkerProtocolError) in
            guard !closed.load(ordering: .relaxed) else { throw .closedByPeer }
            encoder.removeAll()
            defer {
                if encoder.bytes.capacity > Self.retainedSendCapacity { encoder = WireEncoder() }
            }
            try message.encodeFrame(requestID: requestID, into: &encoder)
            try writeAll(encoder.bytes, stallLimit: stallLimit.map { max($0, patience ?? $0) }, interrupted: interrupted)
        }
    }

    /// Waits for the next message, as long as it takes.
    public func receive() throws(WorkerProtocolError) -> ReceivedMessage {
        // Without an idle limit it returns nil only if a receive timeout was set meanwhile.
        while true {
            if let received = try receive(idleLimit: nil) { return received }
        }
    }

    /// Waits for the next message with blocking reads; nil when no byte came for `idleLimit` (nil:
    /// waits as long as it takes). The limit is the socket's receive timeout, set only when it
    /// changes, so a busy channel pays no clock and no `poll` per message. For a channel that one
    /// thread reads this way; bytes of a frame in progress stay buffered for the next call.
    public func receive(idleLimit: Duration?) throws(WorkerProtocolError) -> ReceivedMessage? {
        try receiver.withLock { buffer throws(WorkerProtocolError) in
            guard !closed.load(ordering: .relaxed) else { throw .closedByPeer }
            if idleLimit != buffer.readTimeout {
                // Converted only when it changes: the conversion is about 90 instructions.
                let nanoseconds = idleLimit.map { max(1, $0.nanoseconds) } ?? 0
                var limit = timeval(tv_sec: Int(nanoseconds / 1_000_000_000), tv_usec: Int(nanoseconds % 1_000_000_000 / 1000))
                guard setsockopt(descriptor.rawValue, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
                    throw .system(call: "setsockopt", Errno(rawValue: errno))
                }
                buffer.readTimeout = idleLimit
            }
            while true {
                if let received = try Self.decodeBuffered(&buffer) { return received }
                switch try buffer.fill(from: descriptor) {
                case .bytes: continue
                case .nothingYet: return nil
                case .endOfStream: throw buffer.endOfStreamError()
                }
            }
        }
    }

    /// The next message if it is here whole, buffered or read now without waiting; nil when it is
    /// not (bytes of a frame in progress stay buffered). Throws as ``receive()``.
    public func receiveReady() throws(WorkerProtocolError) -> ReceivedMessage? {
        try receiver.withLock { buffer throws(WorkerProtocolError) in
            guard !closed.load(ordering: .relaxed) else { throw .closedByPeer }
            while true {
                if let received = try Self.decodeBuffered(&buffer) { return received }
                switch try buffer.fill(from: descriptor, waiting: false) {
                case .bytes: continue
                case .nothingYet: return nil
                case .endOfStream: throw buffer.endOfStreamError()
                }
            }
        }
    }

    /// Waits until the socket is readable (bytes, end of stream or an error), without taking the
    /// receiving side: a thread may wait here while another receives what is there.
    public func waitUntilReadable() throws(WorkerProtocolError) {
        _ = try waitUntilReadable(before: nil)
    }

    /// Whether the socket is readable now (bytes, end of stream or an error), without waiting.
    public func isReadableNow() throws(WorkerProtocolError) -> Bool {
        try waitUntilReadable(before: .now)
    }

    /// Ends the connection both ways: the peer reads end of stream, and a
    /// thread blocked in `receive` here wakes with `closedByPeer`. The
    /// descriptor stays open until ``close()`` or the channel is released.
    public func shutdown() throws(WorkerProtocolError) {
        try sender.withLock { _ throws(WorkerProtocolError) in
            guard !closed.load(ordering: .relaxed) else { throw .closedByPeer }
            do throws(Errno) {
                try systemCall { Glibc.shutdown(descriptor.rawValue, Int32(SHUT_RDWR)) }
            } catch {
                throw .system(call: "shutdown", error)
            }
        }
    }

    /// The first message buffered whole, consumed; nil when none is.
    private static func decodeBuffered(_ buffer: inout ReceiveBuffer) throws(WorkerProtocolError) -> ReceivedMessage? {
        guard let payload = try buffer.bufferedPayload() else { return nil }
        var decoder = WireDecoder(buffer.bytes, range: payload)
        let received = try WorkerMessage.decodePayload(from: &decoder)
        buffer.consume(upTo: payload.upperBound)
        return received
    }

    /// Whether the socket became readable (bytes, end of stream or an error) before `deadline`
    /// (nil: waits until it does).
    private func waitUntilReadable(before deadline: ContinuousClock.Instant?) throws(WorkerProtocolError) -> Bool {
        do {
            return try wait(for: POLLIN, before: deadline)
        } catch {
            throw .system(call: "poll", error)
        }
    }

    /// How often a send that waits for the peer asks whether to give up.
    static let interruptionCheckInterval: Duration = .milliseconds(100)

    /// Waits until the peer takes bytes again: `timedOut` after `limit`, `canceled` when
    /// `interrupted` says so (asked every ``interruptionCheckInterval``).
    private func waitUntilWritable(limit: Duration, interrupted: () -> Bool) throws(Errno) {
        let deadline = ContinuousClock.now + limit
        while try !wait(for: POLLOUT, before: min(deadline, ContinuousClock.now + Self.interruptionCheckInterval)) {
            if ContinuousClock.now >= deadline { throw .timedOut }
            if interrupted() { throw .canceled }
        }
    }

    /// Whether the socket became ready for `events` (or failed) before `deadline` (nil: waits until it does).
    private func wait(for events: Int32, before deadline: ContinuousClock.Instant?) throws(Errno) -> Bool {
        var request = pollfd(fd: descriptor.rawValue, events: Int16(events), revents: 0)
        repeat {
            if try systemCall({ poll(&request, 1, deadline.map(Self.milliseconds(until:)) ?? -1) }) > 0 { return true }
        } while deadline.map { ContinuousClock.now < $0 } ?? true
        return false
    }

    /// Milliseconds left until `deadline`, rounded up so a wait never ends early.
    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let (seconds, attoseconds) = max(deadline - ContinuousClock.now, .zero).components
        // Past poll's range (24 days), wait the longest poll can, then again.
        guard seconds < Int64(Int32.max / 1000) else { return Int32.max }
        return Int32(seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    /// Writes the whole frame, waiting at most `stallLimit` (nil: as long as it takes) each time the
    /// peer takes no byte, and no longer once `interrupted` says so.
    private func writeAll(_ bytes: [UInt8], stallLimit: Duration?, interrupted: () -> Bool) throws(WorkerProtocolError) {
        let flags = Int32(MSG_NOSIGNAL) | (stallLimit == nil ? 0 : Int32(MSG_DONTWAIT))
        do {
            try bytes.withUnsafeBytes { frame in
                Result { () throws(Errno) in
                    var written = 0
                    while written < frame.count {
                        do throws(Errno) {
                            written += try systemCall {
                                Glibc.send(descriptor.rawValue, frame.baseAddress.map { $0 + written }, frame.count - written, flags)
                            }
                        } catch .resourceTemporarilyUnavailable {
                            try waitUntilWritable(limit: stallLimit ?? .zero, interrupted: interrupted)
                        }
                    }
                }
            }.get()
        } catch .timedOut {
            // The frame is cut short: nothing more can be said on this channel.
            let limit = stallLimit ?? .zero
            gaveUpAfter.store(max(1, limit.nanoseconds), ordering: .releasing)
            _ = Glibc.shutdown(descriptor.rawValue, Int32(SHUT_RDWR))
            throw .stalled(limit)
        } catch .canceled {
            _ = Glibc.shutdown(descriptor.rawValue, Int32(SHUT_RDWR))
            throw .interrupted
        } catch .brokenPipe, .connectionReset {
            throw .closedByPeer
        } catch {
            throw .system(call: "send", error)
        }
    }
}
