/// Writes JSON text byte for byte as `JSONEncoder` does with `[.sortedKeys,
/// .withoutEscapingSlashes, .prettyPrinted]` (two-space indent, `"key" : value`, an empty
/// array or object written over two lines), straight into a byte buffer: for the large
/// reports of a fixed schema (``ScannedLibrary/writeJSON(into:)``), where `Codable`'s
/// generic machinery, the intermediate tree and the sorting of keys cost more than all
/// the rest of a command. Why not `JSONEncoder` there: a warm `plugboard list --json` of
/// 1,000 libraries spent half its time in it.
///
/// The caller writes an object's keys in ascending byte order, as the encoder sorts them;
/// a debug build checks it. Tests compare the output with `JSONEncoder`'s.
package struct JSONWriter {
    /// The text written so far, UTF-8.
    package private(set) var bytes: [UInt8] = []
    /// Per open array or object: whether it has a member yet.
    private var levels: [Bool] = []
    #if DEBUG
    /// Per open array or object: its last key, to check the keys' order.
    private var lastKeys: [[UInt8]] = []
    #endif
    /// A key was just written: its value comes next, on the key's line.
    private var afterKey = false

    package init() {
        bytes.reserveCapacity(1 << 16)
    }

    /// Writes an object: `body` writes its members with ``key(_:)`` and a value each.
    package mutating func object(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        body(&self)
        close(UInt8(ascii: "}"))
    }

    /// Writes an object whose members are all strings, given in ascending key order; a nil
    /// value leaves its member out (as `encodeIfPresent` does).
    package mutating func object(strings members: KeyValuePairs<String, String?>) {
        object { writer in
            for (name, text) in members { writer.member(name, ifPresent: text) }
        }
    }

    /// Writes an array: `body` writes its elements, a value each.
    package mutating func array(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "["))
        body(&self)
        close(UInt8(ascii: "]"))
    }

    /// Writes an array of `elements`, each by `element`.
    package mutating func array<Elements: Sequence>(_ elements: Elements, _ element: (inout JSONWriter, Elements.Element) -> Void) {
        array { writer in
            for value in elements { element(&writer, value) }
        }
    }

    /// Writes an array of strings.
    package mutating func array(_ strings: [String]) {
        array(strings) { $0.string($1) }
    }

    /// Starts the member `name` of the object being written: its value comes next.
    package mutating func key(_ name: String) {
        #if DEBUG
        assert(lastKeys.last.map { $0.isEmpty || $0.lexicographicallyPrecedes(name.utf8) } ?? false,
               "JSONWriter: key \"\(name)\" out of order")
        lastKeys[lastKeys.count - 1] = Array(name.utf8)
        #endif
        member()
        quoted(name)
        bytes.append(UInt8(ascii: " "))
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        afterKey = true
    }

    /// Writes `text` as a JSON string (a value, or an array's element).
    package mutating func string(_ text: String) {
        element()
        quoted(text)
    }

    /// Writes `number`.
    package mutating func number(_ number: some BinaryInteger) {
        element()
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        // The digits, last first, then reversed in place: no `String` made per number.
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        } while magnitude != 0
        bytes[start...].reverse()
    }

    /// Writes `true` or `false`.
    package mutating func bool(_ value: Bool) {
        element()
        let text: StaticString = value ? "true" : "false"
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Writes a member whose value is the string `text`.
    package mutating func member(_ name: String, _ text: String) {
        key(name)
        string(text)
    }

    /// Writes a member whose value is the string `text`, or nothing when it is nil (as `encodeIfPresent`).
    package mutating func member(_ name: String, ifPresent text: String?) {
        if let text { member(name, text) }
    }

    /// The bytes before a value: after a key, none; in an array, the separator and the indent.
    private mutating func element() {
        if afterKey {
            afterKey = false
        } else {
            member()
        }
    }

    /// A new member or element of the innermost array or object: a comma after the previous
    /// one, a new line and the indent.
    private mutating func member() {
        guard !levels.isEmpty else { return }
        if levels[levels.count - 1] { bytes.append(UInt8(ascii: ",")) }
        levels[levels.count - 1] = true
        newLine(indent: levels.count)
    }

    private mutating func open(_ bracket: UInt8) {
        element()
        bytes.append(bracket)
        levels.append(false)
        #if DEBUG
        lastKeys.append([])
        #endif
    }

    private mutating func close(_ bracket: UInt8) {
        let hasMember = levels.removeLast()
        #if DEBUG
        lastKeys.removeLast()
        #endif
        // An empty one is written over two lines, as the encoder does: "[", an empty line, "]".
        if !hasMember { bytes.append(UInt8(ascii: "\n")) }
        newLine(indent: levels.count)
        bytes.append(bracket)
    }

    private mutating func newLine(indent: Int) {
        bytes.append(UInt8(ascii: "\n"))
        if indent * 2 <= Self.spaces.count {
            bytes.append(contentsOf: Self.spaces[..<(indent * 2)])
        } else {
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
        }
    }

    /// The indents of the first 32 levels, copied in one piece.
    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)

    /// `text` quoted: `"` and `\` escaped, control characters as `\b \f \n \r \t` or `\u00xx`
    /// (lowercase hexadecimal), everything else (`/`, DEL, non-ASCII) as it is.
    private mutating func quoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        // A native `String` lends its bytes as they are; any other is copied first.
        if text.utf8.withContiguousStorageIfAvailable({ quotedContents($0) }) == nil {
            var copy = text
            copy.withUTF8 { quotedContents($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `utf8` as a JSON string's contents.
    private mutating func quotedContents(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Most texts (paths, ids, names) need no escape: copied in one piece.
        if utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: utf8)
        } else {
            escaped(utf8)
        }
    }

    /// `utf8` with its `"`, `\` and control characters escaped.
    private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
            case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let digits = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
    }
}
