/// Why a text is not the JSON asked for (``JSONSyntax``): the first fault, where it is, and why.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The fault's offset in the text's UTF-8 bytes, from 0.
    public let offset: Int
    /// The fault's line, from 1.
    public let line: Int
    /// The fault's column in bytes from the start of its line, from 1.
    public let column: Int
    /// For a duplicate key, its key path (`plugins.com.example.x`, `list[2].name`); else nil.
    public let keyPath: String?
    /// What is wrong: "a trailing comma before '}'".
    public let reason: String

    /// "line 2, column 14: a trailing comma before '}'".
    public var description: String {
        "line \(line), column \(column): \(reason)"
    }
}
