/// Appends little-endian primitives to a byte buffer that is reused from
/// frame to frame, so encoding a message allocates only when it is larger
/// than every message before it.
public struct WireEncoder: Sendable {
    /// The bytes encoded so far.
    public private(set) var bytes: [UInt8]

    /// An empty encoder with room for `capacity` bytes.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Forgets the bytes, keeping the buffer's capacity.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends one byte.
    public mutating func append(_ value: UInt8) {
        bytes.append(value)
    }

    /// Appends 2 bytes, least significant first.
    public mutating func append(_ value: UInt16) { appendLittleEndian(value) }

    /// Appends 4 bytes, least significant first.
    public mutating func append(_ value: UInt32) { appendLittleEndian(value) }

    /// Appends the two's complement bit pattern as 4 bytes.
    public mutating func append(_ value: Int32) { appendLittleEndian(UInt32(bitPattern: value)) }

    /// Appends 8 bytes, least significant first.
    public mutating func append(_ value: UInt64) { appendLittleEndian(value) }

    /// Appends the two's complement bit pattern as 8 bytes.
    public mutating func append(_ value: Int64) { appendLittleEndian(UInt64(bitPattern: value)) }

    /// Appends 1 for true, 0 for false.
    public mutating func append(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    /// Appends a `u32` length, then the bytes.
    ///
    /// A length past `UInt32.max` is clamped; the frame it is in is then over
    /// `WireFormat.maximumPayloadLength` and is refused before it is sent.
    public mutating func append<Bytes: Collection<UInt8>>(bytes value: Bytes) {
        appendLittleEndian(UInt32(clamping: value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends a `u32` byte length, then the string's UTF-8.
    public mutating func append(string value: String) {
        append(bytes: value.utf8)
    }

    /// Appends 0 for nil, else 1 and the string.
    public mutating func append(optionalString value: String?) {
        append(value != nil)
        if let value { append(string: value) }
    }

    /// Overwrites 4 bytes at `offset` (a length prefix written before its payload).
    mutating func overwrite(_ value: UInt32, at offset: Int) {
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self) }
    }

    private mutating func appendLittleEndian<Value: FixedWidthInteger & UnsignedInteger>(_ value: Value) {
        var remaining = value
        for _ in 0..<MemoryLayout<Value>.size {
            bytes.append(UInt8(truncatingIfNeeded: remaining))
            remaining >>= 8
        }
    }
}
