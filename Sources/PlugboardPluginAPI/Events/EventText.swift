/// A text argument of a ``LifecycleEvent`` (a URL, JSON object text, an activity type, an error):
/// always UTF-8, as the C ABI promises every plugin, kept as the `String` it came as or as the
/// bytes it came as (from the worker channel or an embedder). Bytes that are not UTF-8 are
/// repaired when the text is made, once, so that no plugin has to check what it is lent.
public struct EventText: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    @usableFromInline
    enum Storage: Sendable, Hashable {
        case string(String)
        case bytes([UInt8])
    }

    @usableFromInline
    let storage: Storage

    /// The text of `string`.
    @inlinable
    public init(_ string: String) {
        storage = .string(string)
    }

    /// `bytes`, with any that are not UTF-8 repaired with U+FFFD. ASCII, what URLs and JSON
    /// nearly always are, is recognized eight bytes at a time; other text is validated once.
    public init(bytes: [UInt8]) {
        let valid = bytes.withUnsafeBufferPointer { buffer in
            isASCII(buffer) || (try? UTF8Span(validating: buffer.span)) != nil
        }
        storage = .bytes(valid ? bytes : Array(String(decoding: bytes, as: UTF8.self).utf8))
    }

    /// `bytes` known to be UTF-8 (the worker channel's decoder validated them), kept as they are.
    package init(validUTF8 bytes: [UInt8]) {
        storage = .bytes(bytes)
    }

    /// A literal text.
    public init(stringLiteral value: String) {
        storage = .string(value)
    }

    /// The text as a `String`.
    public var string: String {
        switch storage {
        case .string(let string): string
        case .bytes(let bytes): String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The text's UTF-8 bytes.
    public var bytes: [UInt8] {
        switch storage {
        case .string(let string): Array(string.utf8)
        case .bytes(let bytes): bytes
        }
    }

    /// The text itself.
    public var description: String { string }

    /// Runs `body` with the text as a C callback takes it: the bytes NUL-terminated, and their
    /// count without the NUL; valid during `body` only. A `String` is passed without a copy.
    /// Always inlined, so that a dispatch loop passed as `body` stays in its typed event method.
    @inlinable @inline(__always)
    public func withCText<Result>(_ body: (UnsafePointer<CChar>, Int) throws -> Result) rethrows -> Result {
        switch storage {
        case .string(let string):
            try string.withCString { try body($0, string.utf8.count) }
        case .bytes(let bytes):
            try Self.withCText(bytes, body)
        }
    }

    @usableFromInline
    static func withCText<Result>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>, Int) throws -> Result) rethrows -> Result {
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        defer { copy.deallocate() }
        UnsafeMutableRawBufferPointer(start: copy, count: bytes.count).copyBytes(from: bytes)
        copy[bytes.count] = 0
        return try body(copy, bytes.count)
    }

    /// Equal when the bytes are.
    public static func == (lhs: EventText, rhs: EventText) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.string(let left), .string(let right)): left.utf8.elementsEqual(right.utf8)
        default: lhs.bytes == rhs.bytes
        }
    }

    /// Hashes the bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes)
    }
}

/// Whether every byte of `buffer` is ASCII (below 0x80): eight bytes at a time, the last eight
/// (or, below eight, four) read overlapping the ones before, so a short text takes two or three loads.
@inline(__always)
func isASCII(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let start = buffer.baseAddress else { return true }
    let raw = UnsafeRawPointer(start)
    let count = buffer.count
    var high: UInt64 = 0
    if count >= 8 {
        var index = 0
        while index + 8 <= count {
            high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        if index < count { high |= raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) }
    } else if count >= 4 {
        high = UInt64(raw.loadUnaligned(as: UInt32.self) | raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
    } else {
        for byte in buffer { high |= UInt64(byte) }
    }
    return high & 0x8080_8080_8080_8080 == 0
}
