/// Reads little-endian primitives from a payload, checking every length
/// against the bytes left, so a hostile peer gets a typed error naming the
/// field, never a crash or an out-of-bounds read.
public struct WireDecoder {
    private let bytes: [UInt8]
    private var position: Int
    private let end: Int

    /// A decoder over `bytes[range]` (all of `bytes` without a range; a range
    /// past the bytes is cut to them).
    public init(_ bytes: [UInt8], range: Range<Int>? = nil) {
        let range = range?.clamped(to: bytes.indices) ?? bytes.indices
        self.bytes = bytes
        position = range.lowerBound
        end = range.upperBound
    }

    /// Bytes not read yet.
    public var remaining: Int { end - position }

    /// Where the next read starts, as an index of the bytes the decoder was made over.
    public var offset: Int { position }

    /// Passes over the next `count` bytes, unread (a negative count is malformed).
    public mutating func skip(_ count: Int, _ field: StaticString) throws(WorkerProtocolError) {
        guard count >= 0 else { throw .malformed(field: "\(field)", cause: .invalidValue(0)) }
        _ = try advance(by: count, field)
    }

    /// Reads one byte.
    public mutating func readUInt8(_ field: StaticString) throws(WorkerProtocolError) -> UInt8 {
        bytes[try advance(by: 1, field)]
    }

    /// Reads 2 bytes, least significant first.
    public mutating func readUInt16(_ field: StaticString) throws(WorkerProtocolError) -> UInt16 {
        try readLittleEndian(field)
    }

    /// Reads 4 bytes, least significant first.
    public mutating func readUInt32(_ field: StaticString) throws(WorkerProtocolError) -> UInt32 {
        try readLittleEndian(field)
    }

    /// Reads a two's complement 4-byte integer.
    public mutating func readInt32(_ field: StaticString) throws(WorkerProtocolError) -> Int32 {
        Int32(bitPattern: try readLittleEndian(field))
    }

    /// Reads 8 bytes, least significant first.
    public mutating func readUInt64(_ field: StaticString) throws(WorkerProtocolError) -> UInt64 {
        try readLittleEndian(field)
    }

    /// Reads a two's complement 8-byte integer.
    public mutating func readInt64(_ field: StaticString) throws(WorkerProtocolError) -> Int64 {
        Int64(bitPattern: try readLittleEndian(field))
    }

    /// Reads a byte that must be 0 (false) or 1 (true).
    public mutating func readBool(_ field: StaticString) throws(WorkerProtocolError) -> Bool {
        switch try readUInt8(field) {
        case 0: false
        case 1: true
        case let other: throw .malformed(field: "\(field)", cause: .invalidValue(UInt64(other)))
        }
    }

    /// Reads a `u32` length and that many bytes.
    public mutating func readBytes(_ field: StaticString) throws(WorkerProtocolError) -> [UInt8] {
        Array(bytes[try readLengthPrefixedRange(field)])
    }

    /// Reads a `u32` length and that many bytes of UTF-8.
    public mutating func readString(_ field: StaticString) throws(WorkerProtocolError) -> String {
        let range = try readLengthPrefixedRange(field)
        // Through `UTF8Span`, whose validation is one call into the standard library: the generic
        // `String(validating:as:)` looks up the encoding's types for every string it makes.
        guard let text = try? UTF8Span(validating: bytes.span.extracting(range)) else {
            throw .malformed(field: "\(field)", cause: .invalidUTF8)
        }
        return String(copying: text)
    }

    /// Reads a `u32` length and that many bytes of UTF-8, as bytes (an event's text, which the
    /// worker lends plugins as it came).
    public mutating func readUTF8Bytes(_ field: StaticString) throws(WorkerProtocolError) -> [UInt8] {
        let range = try readLengthPrefixedRange(field)
        guard (try? UTF8Span(validating: bytes.span.extracting(range))) != nil else {
            throw .malformed(field: "\(field)", cause: .invalidUTF8)
        }
        return Array(bytes[range])
    }

    /// Reads a presence byte (0 or 1), then the string when present.
    public mutating func readOptionalString(_ field: StaticString) throws(WorkerProtocolError) -> String? {
        try readBool(field) ? try readString(field) : nil
    }

    /// Refuses bytes left after the last field of `message`.
    public func requireEnd(of message: StaticString) throws(WorkerProtocolError) {
        guard remaining == 0 else { throw .malformed(field: "\(message)", cause: .trailingBytes(remaining)) }
    }

    /// Reads a `u32` length and passes over that many bytes: where they lie in the bytes the decoder
    /// was made over, to read later without a copy.
    public mutating func readLengthPrefixedRange(_ field: StaticString) throws(WorkerProtocolError) -> Range<Int> {
        let length = Int(try readUInt32(field))
        let start = try advance(by: length, field)
        return start..<(start + length)
    }

    private mutating func readLittleEndian<Value: FixedWidthInteger & UnsignedInteger>(
        _ field: StaticString
    ) throws(WorkerProtocolError) -> Value {
        let start = try advance(by: MemoryLayout<Value>.size, field)
        // One unaligned load, in bounds: `advance` checked the range, which lies within `bytes`.
        return Value(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: start, as: Value.self) })
    }

    /// Moves past `count` bytes and returns where they start.
    private mutating func advance(by count: Int, _ field: StaticString) throws(WorkerProtocolError) -> Int {
        guard count <= remaining else {
            throw .malformed(field: "\(field)", cause: .runsPastEnd(needed: count, available: remaining))
        }
        defer { position += count }
        return position
    }
}
