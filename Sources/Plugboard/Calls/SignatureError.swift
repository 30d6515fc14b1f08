/// Why a signature text is not one of the type language: the 1-based column
/// (in bytes) where it goes wrong, and the cause.
public struct SignatureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the text the problem starts (1-based, bytes).
    public let column: Int
    /// What is wrong, e.g. `unknown type "int"`.
    public let message: String

    init(column: Int, _ message: String) {
        self.column = column
        self.message = message
    }

    /// `column 9: unknown type "int" (…)`.
    public var description: String {
        "column \(column): \(message)"
    }
}
