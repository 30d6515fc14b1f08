/// The version of the worker protocol a peer speaks, exchanged in `hello` and `helloReply`.
///
/// The rule: the majors must be equal; the minors may differ, and then each
/// side sends only what the lower minor defines (a minor only adds messages
/// or fields at the end of a message).
public struct WorkerProtocolVersion: Sendable, Hashable, CustomStringConvertible {
    /// Changes only when a message changes incompatibly.
    public var major: UInt16
    /// Grows when messages are added.
    public var minor: UInt16

    /// Makes a version.
    public init(major: UInt16, minor: UInt16) {
        self.major = major
        self.minor = minor
    }

    /// The version this module speaks.
    public static let current = WorkerProtocolVersion(major: 1, minor: 9)

    /// The minor from which the host sends what a worker takes at any time (a function call while
    /// the worker's main thread is busy, the replies to the worker's own requests) on a second
    /// socket, the concurrent channel, when both sides speak it (WORKER-PROTOCOL.md).
    public static let concurrentChannelMinor: UInt16 = 7

    /// The minor from which the worker's `loaded` carries the stamp of the file it checked.
    public static let loadedFileStampMinor: UInt16 = 9

    /// Whether two peers, this one and `peer`, use the concurrent channel: both speak its minor.
    public func sharesConcurrentChannel(with peer: WorkerProtocolVersion) -> Bool {
        min(minor, peer.minor) >= Self.concurrentChannelMinor
    }

    /// Refuses a peer with another major, naming both versions.
    public func requireCompatible(peer: WorkerProtocolVersion) throws(WorkerProtocolError) {
        guard peer.major == major else { throw .incompatibleVersion(peer: peer, own: self) }
    }

    /// `major.minor`, as errors and logs show it.
    public var description: String { "\(major).\(minor)" }
}
