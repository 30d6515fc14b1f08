import CPlugboard

/// A failure of the files service: the `PB_ERR_*` status and the host's sentence.
public struct ContainerFilesError: Error, Sendable, CustomStringConvertible {
    /// The negative `PB_ERR_*` code.
    public let status: Int32
    /// The host's explanation: operation, path, cause.
    public let message: String

    /// The host's sentence.
    public var description: String { message }

    /// Whether the host's policy denies this library the files service (`PB_ERR_DENIED`, since ABI 1.3).
    public var isDenied: Bool { status == PB_ERR_DENIED }
}
