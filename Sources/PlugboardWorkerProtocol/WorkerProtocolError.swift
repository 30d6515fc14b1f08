import SystemPackage

/// Every way a frame can fail to travel between host and worker.
///
/// After any of these but `incompatibleVersion` the channel is unusable and its
/// owner closes it (WORKER-PROTOCOL.md, "Errors"); the description is one line
/// that names the field or system call and the cause.
public enum WorkerProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer closed the channel at a frame boundary (for a worker: it exited or crashed).
    case closedByPeer
    /// The peer closed the channel, or the bytes ended, inside a frame.
    case truncatedFrame(received: Int, expected: Int)
    /// A frame's payload is longer than `WireFormat.maximumPayloadLength` (announced by a peer, or about to be sent).
    case frameTooLarge(length: Int, maximum: Int)
    /// A frame whose payload does not decode; `field` is `message.field`, e.g. `call.url`.
    case malformed(field: String, cause: Malformation)
    /// The peer speaks another major version of the protocol.
    case incompatibleVersion(peer: WorkerProtocolVersion, own: WorkerProtocolVersion)
    /// The peer took no byte of a frame for this long: it stopped reading; the channel was shut down.
    case stalled(Duration)
    /// A send gave up waiting for the peer to read, as this side was asked to stop; the channel was shut down.
    case interrupted
    /// A system call on the channel's descriptor failed.
    case system(call: String, Errno)

    /// Why a payload does not decode.
    public enum Malformation: Sendable, Equatable {
        /// The field needs more bytes than the payload has left.
        case runsPastEnd(needed: Int, available: Int)
        /// A string field is not valid UTF-8.
        case invalidUTF8
        /// The message kind byte names no message of this protocol version.
        case unknownKind(UInt8)
        /// A number outside the field's set: an unknown event code, answer kind or
        /// files operation, a bool other than 0 or 1.
        case invalidValue(UInt64)
        /// A name outside the field's set (a `stage` naming no library function).
        case unknownName(String)
        /// A request or reply came with request id 0.
        case missingRequestID
        /// A message that takes no reply came with a request id other than 0.
        case unexpectedRequestID(UInt64)
        /// Bytes are left in the payload after the message's last field.
        case trailingBytes(Int)
    }

    /// One line naming the field or system call and the cause.
    public var description: String {
        switch self {
        case .closedByPeer:
            "the peer closed the channel"
        case .truncatedFrame(let received, let expected):
            "the frame ended after \(received) of its \(expected) bytes"
        case .frameTooLarge(let length, let maximum):
            "a frame payload of \(length) bytes is over the maximum of \(maximum) bytes"
        case .malformed(let field, let cause):
            "malformed frame: \(field): \(cause)"
        case .incompatibleVersion(let peer, let own):
            "the peer speaks worker protocol \(peer), which this side (\(own)) cannot: the major versions differ"
        case .interrupted:
            "a send was given up half way, as this side was asked to stop"
        case .system(let call, let errno):
            "\(call) on the worker channel failed: \(errno)"
        case .stalled(let limit):
            "it read nothing of a frame sent to it for \(limit.components.seconds * 1000 + limit.components.attoseconds / 1_000_000_000_000_000) ms: it stopped reading its channel"
        }
    }
}

extension WorkerProtocolError.Malformation: CustomStringConvertible {
    /// The cause, to follow the field's name.
    public var description: String {
        switch self {
        case .runsPastEnd(let needed, let available):
            "needs \(needed) bytes but only \(available) are left in the payload"
        case .invalidUTF8:
            "not valid UTF-8"
        case .unknownKind(let kind):
            "unknown message kind \(kind)"
        case .invalidValue(let value):
            "\(value) is not one of the field's values"
        case .unknownName(let name):
            "\"\(name)\" is not one of the field's names"
        case .missingRequestID:
            "request id 0 on a message that must carry one"
        case .unexpectedRequestID(let id):
            "request id \(id) on a message that takes no reply (must be 0)"
        case .trailingBytes(let count):
            "\(count) bytes after the last field"
        }
    }
}
