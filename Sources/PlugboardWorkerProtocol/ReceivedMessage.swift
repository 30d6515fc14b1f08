/// A decoded frame: the message and the request id it came with.
public struct ReceivedMessage: Sendable, Equatable {
    /// The message.
    public var message: WorkerMessage
    /// The request id: nonzero for requests and replies, 0 for notifications.
    public var requestID: UInt64

    /// Pairs a message with its request id.
    public init(_ message: WorkerMessage, requestID: UInt64) {
        self.message = message
        self.requestID = requestID
    }
}
