import CPlugboard

/// A failed ``PlugboardHost/invoke(_:_:)``: the `PB_ERR_*` status and the host's sentence.
public struct InvokeError: Error, Sendable, CustomStringConvertible {
    /// The negative `PB_ERR_*` code (`PB_ERR_NOT_FOUND` for an unknown plugin or function, …).
    public let status: Int32
    /// The host's explanation, naming the function and the cause.
    public let message: String

    /// The host's sentence.
    public var description: String { message }

    /// Whether the host's policy denies this library invoke (`PB_ERR_DENIED`, since ABI 1.3).
    public var isDenied: Bool { status == PB_ERR_DENIED }
}
