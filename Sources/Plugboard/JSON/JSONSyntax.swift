#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A strict RFC 8259 check of JSON text that scans its UTF-8 bytes and builds nothing.
///
/// Why not Foundation's `JSONSerialization`: it builds the whole object tree (most of the
/// cost of checking a notification payload), accepts duplicate keys (the last one wins:
/// dangerous in a policy file) and trailing commas, and reports no usable position.
/// Inputs are checked here first, then read as a ``JSONValue`` when their values are needed.
///
/// The grammar is RFC 8259's, exactly (numbers `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`,
/// the escapes `\" \\ \/ \b \f \n \r \t \uXXXX`, control characters escaped, whitespace
/// space, tab, line feed and carriage return). Beyond it:
/// - arrays and objects nest at most ``maximumDepth`` deep;
/// - the text is well-formed UTF-8 (no overlong forms, no encoded surrogates, nothing past U+10FFFF);
/// - a `\uXXXX` surrogate is a high one followed by a low one: a lone surrogate, which
///   RFC 8259 lets through but no UTF-8 string can hold, is refused;
/// - with `refusingDuplicateKeys`, a key repeated in one object is refused with its key
///   path; keys are compared after unescaping (`"a"` and `"\u0061"` are the same key).
/// Only that mode allocates (the keys seen so far).
public enum JSONSyntax {
    /// How deep arrays and objects may nest: `[[…]]` 512 deep is accepted, 513 deep is not.
    public static let maximumDepth = 512

    /// What the text must hold.
    public enum Top: Sendable {
        /// Any one JSON value.
        case value
        /// One JSON object.
        case object
    }

    /// Checks that `text` is exactly one JSON value of kind `top`, with only whitespace around it.
    public static func check(_ text: String, top: Top = .value, refusingDuplicateKeys: Bool = false) throws(JSONSyntaxError) {
        var text = text
        try text.withUTF8 { bytes in
            Result { () throws(JSONSyntaxError) in try check(bytes, top: top, refusingDuplicateKeys: refusingDuplicateKeys) }
        }.get()
    }

    /// Checks that `data` is exactly one JSON value of kind `top`, with only whitespace around it.
    public static func check(_ data: Data, top: Top = .value, refusingDuplicateKeys: Bool = false) throws(JSONSyntaxError) {
        try data.withUnsafeBytes { raw in
            Result { () throws(JSONSyntaxError) in
                try check(raw.assumingMemoryBound(to: UInt8.self), top: top, refusingDuplicateKeys: refusingDuplicateKeys)
            }
        }.get()
    }

    private static func check(_ bytes: UnsafeBufferPointer<UInt8>, top: Top, refusingDuplicateKeys: Bool) throws(JSONSyntaxError) {
        var scanner = Scanner(bytes: bytes, keys: refusingDuplicateKeys ? KeyTracker() : nil)
        try scanner.document(top: top)
    }
}

/// The keys seen in each open container and the path to it, for ``JSONSyntax``'s duplicate check.
private struct KeyTracker {
    /// One open container: an object's keys so far and current key, or an array's current index.
    enum Level {
        case object(seen: Set<String>, key: String)
        case array(index: Int)
    }

    var levels: [Level] = []

    /// The key path of the current value: `plugins.com.example.x.deny[1]`.
    var path: String {
        var path = ""
        for level in levels {
            switch level {
            case .object(_, let key): path += (path.isEmpty ? "" : ".") + key
            case .array(let index): path += "[\(index)]"
            }
        }
        return path
    }

    /// Records `key` in the innermost object; false when it was already there.
    mutating func add(_ key: String) -> Bool {
        guard case .object(var seen, _) = levels.last else { return true }
        let isNew = seen.insert(key).inserted
        levels[levels.count - 1] = .object(seen: seen, key: key)
        return isNew
    }

    /// Moves the innermost array to its next element.
    mutating func nextElement() {
        guard case .array(let index) = levels.last else { return }
        levels[levels.count - 1] = .array(index: index + 1)
    }
}

/// One pass over the bytes; each method consumes what it names or throws the first fault.
private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var keys: KeyTracker?
    var position = 0
    var depth = 0
    /// The current key's unescaped bytes, gathered only while `keys` is set.
    var key: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, keys: KeyTracker?) {
        self.bytes = bytes
        self.keys = keys
    }

    private var next: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func document(top: JSONSyntax.Top) throws(JSONSyntaxError) {
        skipWhitespace()
        if top == .object, next != UInt8(ascii: "{") {
            throw fault("expected a JSON object, found \(found)")
        }
        try value()
        skipWhitespace()
        if position < bytes.count {
            throw fault("expected the end of the text after the JSON value, found \(found)")
        }
    }

    private mutating func value() throws(JSONSyntaxError) {
        switch next ?? 0 {
        case UInt8(ascii: "{"): try object()
        case UInt8(ascii: "["): try array()
        case UInt8(ascii: "\""): try string(gatheringKey: false)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: throw fault("expected a value, found \(found)")
        }
    }

    private mutating func object() throws(JSONSyntaxError) {
        try enter(.object(seen: [], key: ""))
        skipWhitespace()
        if next == UInt8(ascii: "}") { return leave() }
        while true {
            guard next == UInt8(ascii: "\"") else {
                throw fault(next == UInt8(ascii: "}") ? "a trailing comma before '}'" : "expected a key (a string), found \(found)")
            }
            let keyStart = position
            try string(gatheringKey: keys != nil)
            if keys != nil, keys?.add(String(decoding: key, as: UTF8.self)) == false {
                throw fault("the key \(String(reflecting: String(decoding: key, as: UTF8.self))) appears twice in one object",
                            at: keyStart, keyPath: keys?.path)
            }
            skipWhitespace()
            guard next == UInt8(ascii: ":") else { throw fault("expected ':' after the key, found \(found)") }
            position += 1
            skipWhitespace()
            try value()
            skipWhitespace()
            switch next {
            case UInt8(ascii: ","): position += 1; skipWhitespace()
            case UInt8(ascii: "}"): return leave()
            default: throw fault("expected ',' or '}' in the object, found \(found)")
            }
        }
    }

    private mutating func array() throws(JSONSyntaxError) {
        try enter(.array(index: 0))
        skipWhitespace()
        if next == UInt8(ascii: "]") { return leave() }
        while true {
            if next == UInt8(ascii: "]") { throw fault("a trailing comma before ']'") }
            try value()
            skipWhitespace()
            switch next {
            case UInt8(ascii: ","): position += 1; skipWhitespace(); keys?.nextElement()
            case UInt8(ascii: "]"): return leave()
            default: throw fault("expected ',' or ']' in the array, found \(found)")
            }
        }
    }

    /// Steps over the opening bracket into a container at `level`.
    private mutating func enter(_ level: KeyTracker.Level) throws(JSONSyntaxError) {
        guard depth < JSONSyntax.maximumDepth else {
            throw fault("arrays and objects nest deeper than \(JSONSyntax.maximumDepth)")
        }
        depth += 1
        position += 1
        keys?.levels.append(level)
    }

    /// Steps over the closing bracket out of the current container.
    private mutating func leave() {
        depth -= 1
        position += 1
        keys?.levels.removeLast()
    }

    private mutating func string(gatheringKey gathering: Bool) throws(JSONSyntaxError) {
        let start = position
        position += 1
        if gathering { key.removeAll(keepingCapacity: true) }
        while let byte = next {
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return
            case UInt8(ascii: "\\"):
                try escape(gathering: gathering)
            case 0..<0x20:
                throw fault("a control character (byte 0x\(hex(byte))) in a string; it must be escaped")
            case 0..<0x80:
                if gathering { key.append(byte) }
                position += 1
            default:
                let sequenceStart = position
                try utf8Sequence()
                if gathering { key.append(contentsOf: bytes[sequenceStart..<position]) }
            }
        }
        throw fault("the text ends inside the string that starts here", at: start)
    }

    private mutating func escape(gathering: Bool) throws(JSONSyntaxError) {
        let start = position
        position += 1
        let simple: UInt8?
        switch next {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): simple = next
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default: throw fault("'\\' followed by \(found) is not a JSON escape", at: start)
        }
        if let simple {
            position += 1
            if gathering { key.append(simple) }
            return
        }
        var scalar = try hexUnit()
        if 0xDC00...0xDFFF ~= scalar {
            throw fault("a lone low surrogate \\u\(hex(scalar)) (no UTF-8 text can hold it)", at: start)
        }
        if 0xD800...0xDBFF ~= scalar {
            guard next == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                throw fault("a lone high surrogate \\u\(hex(scalar)) (no UTF-8 text can hold it)", at: start)
            }
            position += 1
            let low = try hexUnit()
            guard 0xDC00...0xDFFF ~= low else {
                throw fault("a lone high surrogate \\u\(hex(scalar)) (no UTF-8 text can hold it)", at: start)
            }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        if gathering, let unicode = Unicode.Scalar(scalar) {
            key.append(contentsOf: UTF8.encode(unicode).map(Array.init) ?? [])
        }
    }

    /// Reads `u` and four hex digits, the unit of a `\uXXXX` escape.
    private mutating func hexUnit() throws(JSONSyntaxError) -> UInt32 {
        let start = position - 1
        position += 1
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = next, let digit = Self.hexValue(byte) else {
                throw fault("'\\u' needs four hex digits", at: start)
            }
            unit = unit << 4 | digit
            position += 1
        }
        return unit
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// Steps over one well-formed multi-byte UTF-8 sequence (Unicode's table 3-7).
    private mutating func utf8Sequence() throws(JSONSyntaxError) {
        let lead = bytes[position]
        let second: ClosedRange<UInt8>
        let length: Int
        switch lead {
        case 0xC2...0xDF: (second, length) = (0x80...0xBF, 2)
        case 0xE0: (second, length) = (0xA0...0xBF, 3)
        case 0xE1...0xEC, 0xEE...0xEF: (second, length) = (0x80...0xBF, 3)
        case 0xED: (second, length) = (0x80...0x9F, 3)
        case 0xF0: (second, length) = (0x90...0xBF, 4)
        case 0xF1...0xF3: (second, length) = (0x80...0xBF, 4)
        case 0xF4: (second, length) = (0x80...0x8F, 4)
        default: throw fault("invalid UTF-8 (byte 0x\(hex(lead)))")
        }
        for index in 1..<length {
            let allowed = index == 1 ? second : 0x80...0xBF
            guard position + index < bytes.count, allowed ~= bytes[position + index] else {
                throw fault("invalid UTF-8 (a sequence starting with byte 0x\(hex(lead)) is cut short or malformed)")
            }
        }
        position += length
    }

    private mutating func number() throws(JSONSyntaxError) {
        if next == UInt8(ascii: "-") { position += 1 }
        if next == UInt8(ascii: "0") {
            position += 1
            if isDigit(next) { throw fault("a number cannot start with 0 followed by a digit") }
        } else {
            try digits(after: "'-'")
        }
        if next == UInt8(ascii: ".") {
            position += 1
            try digits(after: "the decimal point")
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            position += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { position += 1 }
            try digits(after: "the exponent's 'e'")
        }
    }

    /// Steps over one or more digits, which must follow `what`.
    private mutating func digits(after what: String) throws(JSONSyntaxError) {
        guard isDigit(next) else { throw fault("expected a digit after \(what), found \(found)") }
        while isDigit(next) { position += 1 }
    }

    private func isDigit(_ byte: UInt8?) -> Bool {
        byte.map { UInt8(ascii: "0")...UInt8(ascii: "9") ~= $0 } ?? false
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let start = position
        for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            guard next == expected else { throw fault("expected '\(word)'", at: start) }
            position += 1
        }
    }

    private mutating func skipWhitespace() {
        while let byte = next, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    /// The byte at `position` as a message shows it.
    private var found: String {
        guard let byte = next else { return "the end of the text" }
        return (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(hex(byte))"
    }

    /// `value` in upper-case hex, two digits for a byte and four for a `\u` unit.
    private func hex(_ value: some FixedWidthInteger) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, (value.bitWidth == 8 ? 2 : 4) - digits.count)) + digits
    }

    /// The error `reason` at `offset` (the current position unless given), with its line and column.
    private func fault(_ reason: String, at offset: Int? = nil, keyPath: String? = nil) -> JSONSyntaxError {
        let offset = offset ?? position
        let before = bytes[..<offset]
        let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        return JSONSyntaxError(offset: offset, line: before.count { $0 == 0x0A } + 1, column: offset - lineStart + 1,
                               keyPath: keyPath, reason: reason)
    }
}
