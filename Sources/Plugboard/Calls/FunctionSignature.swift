import PlugboardWorkerProtocol

/// A declared signature, `RETURN (ARG, ARG, …)` in the type language of
/// `plugboard/functions.h`, parsed once when the plugin loads.
public struct FunctionSignature: Sendable, Hashable, CustomStringConvertible {
    /// The most arguments a signature may have (as many as the worker protocol carries).
    public static let maximumArguments = PluginValue.maximumListCount

    /// What the function returns.
    public let result: FunctionType
    /// The argument types, in order (never `void`).
    public let arguments: [FunctionType]

    /// Parses `text`: whitespace-tolerant, strict otherwise; an error names the column and the cause.
    public init(parsing text: String) throws(SignatureError) {
        var parser = SignatureParser(Array(text.utf8))
        let result = try parser.type()
        try parser.expect(UInt8(ascii: "("), after: "the return type")
        var arguments: [FunctionType] = []
        if !parser.take(UInt8(ascii: ")")) {
            repeat {
                let column = parser.nextColumn()
                let type = try parser.type()
                if type == .void {
                    throw SignatureError(column: column, "void is only a return type (write \"()\" for no arguments)")
                }
                arguments.append(type)
                if arguments.count > Self.maximumArguments {
                    throw SignatureError(column: column, "more than \(Self.maximumArguments) arguments")
                }
            } while parser.take(UInt8(ascii: ","))
            try parser.expect(UInt8(ascii: ")"), after: "an argument type")
        }
        try parser.end()
        self.result = result
        self.arguments = arguments
    }

    /// The canonical text: `double (int32, double, string)`.
    public var description: String {
        "\(result) (\(arguments.map(\.rawValue).joined(separator: ", ")))"
    }
}

/// Reads a signature's bytes left to right, skipping spaces and tabs between tokens.
private struct SignatureParser {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Skips spaces; the 1-based column of the next token.
    mutating func nextColumn() -> Int {
        skipSpace()
        return index + 1
    }

    /// A type name.
    mutating func type() throws(SignatureError) -> FunctionType {
        skipSpace()
        let start = index
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        guard index > start else {
            throw SignatureError(column: start + 1, "expected a type, found \(found(at: start))")
        }
        let name = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let type = FunctionType(rawValue: name) else {
            throw SignatureError(column: start + 1, "unknown type \"\(name)\" (the types: "
                                 + FunctionType.allCases.map(\.rawValue).joined(separator: " ") + ")")
        }
        return type
    }

    /// Consumes `byte` if it comes next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Consumes `byte`, which must come next (after `what`).
    mutating func expect(_ byte: UInt8, after what: String) throws(SignatureError) {
        let at = nextColumn()
        guard take(byte) else {
            throw SignatureError(column: at, "expected \"\(Character(Unicode.Scalar(byte)))\" after \(what), found \(found(at: at - 1))")
        }
    }

    /// Nothing but spaces may follow.
    mutating func end() throws(SignatureError) {
        let at = nextColumn()
        guard index == bytes.count else {
            throw SignatureError(column: at, "unexpected \(found(at: at - 1)) after the closing \")\"")
        }
    }

    /// The token at `offset`, quoted, or "the end".
    private func found(at offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the signature" }
        var end = offset
        if Self.isNameByte(bytes[offset]) {
            while end < bytes.count, Self.isNameByte(bytes[end]) { end += 1 }
        } else {
            end = offset + 1
            while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        }
        return "\"" + String(decoding: bytes[offset..<end], as: UTF8.self) + "\""
    }

    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
    }

    /// Letters, digits and `_`, the bytes a name (known or not) is made of.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
