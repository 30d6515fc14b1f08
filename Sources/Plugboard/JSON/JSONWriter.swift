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
package struct JSONWriter: ~Copyable {
    /// The text written so far, UTF-8: `count` bytes at `start`, which has room for `capacity`.
    /// A buffer of its own, not an array: an array checks that it is not shared at each append.
    private var start: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity = 1 << 16
    /// Per open array or object: whether it has a member yet.
    private var levels: [Bool] = []
    #if DEBUG
    /// Per open array or object: its last key, to check the keys' order.
    private var lastKeys: [[UInt8]] = []
    #endif
    /// A key was just written: its value comes next, on the key's line.
    private var afterKey = false

    package init() {
        start = .allocate(capacity: capacity)
    }

    deinit {
        start.deallocate()
    }

    /// The text written so far, UTF-8.
    package var bytes: [UInt8] { Array(UnsafeBufferPointer(start: start, count: count)) }

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
        append(" : ")
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
        if number < 0 { append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        // The digits, last first, then reversed in place: no `String` made per number.
        reserve(40)
        let first = count
        repeat {
            start[count] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
            count += 1
            magnitude /= 10
        } while magnitude != 0
        var digits = UnsafeMutableBufferPointer(start: start + first, count: count - first)
        digits.reverse()
    }

    /// Writes `true` or `false`.
    package mutating func bool(_ value: Bool) {
        element()
        append(value ? "true" : "false")
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
        if levels[levels.count - 1] { append(UInt8(ascii: ",")) }
        levels[levels.count - 1] = true
        newLine(indent: levels.count)
    }

    private mutating func open(_ bracket: UInt8) {
        element()
        append(bracket)
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
        if !hasMember { append(UInt8(ascii: "\n")) }
        newLine(indent: levels.count)
        append(bracket)
    }

    private mutating func newLine(indent: Int) {
        append(UInt8(ascii: "\n"))
        reserve(indent * 2)
        (start + count).initialize(repeating: UInt8(ascii: " "), count: indent * 2)
        count += indent * 2
    }

    /// `text` quoted: `"` and `\` escaped, control characters as `\b \f \n \r \t` or `\u00xx`
    /// (lowercase hexadecimal), everything else (`/`, DEL, non-ASCII) as it is.
    private mutating func quoted(_ text: String) {
        append(UInt8(ascii: "\""))
        // A native `String` lends its bytes as they are; any other is copied first.
        if text.utf8.withContiguousStorageIfAvailable({ quotedContents($0) }) == nil {
            var copy = text
            copy.withUTF8 { quotedContents($0) }
        }
        append(UInt8(ascii: "\""))
    }

    /// `utf8` as a JSON string's contents.
    private mutating func quotedContents(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Most texts (paths, ids, names) need no escape: copied in one piece.
        if utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            append(utf8)
        } else {
            escaped(utf8)
        }
    }

    /// `utf8` with its `"`, `\` and control characters escaped.
    private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): append(#"\""#)
            case UInt8(ascii: "\\"): append(#"\\"#)
            case 0x08: append(#"\b"#)
            case 0x0C: append(#"\f"#)
            case 0x0A: append(#"\n"#)
            case 0x0D: append(#"\r"#)
            case 0x09: append(#"\t"#)
            case 0..<0x20:
                let digits: StaticString = "0123456789abcdef"
                append(#"\u00"#)
                append(digits.utf8Start[Int(byte >> 4)])
                append(digits.utf8Start[Int(byte & 0xF)])
            default: append(byte)
            }
        }
    }

    private mutating func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        (start + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// Room for `more` bytes after the text.
    private mutating func reserve(_ more: Int) {
        if count + more > capacity { grow(to: count + more) }
    }

    @inline(never)
    private mutating func grow(to needed: Int) {
        let larger = max(capacity * 2, needed)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: start, count: count)
        start.deallocate()
        (start, capacity) = (moved, larger)
    }
}
