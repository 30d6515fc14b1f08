/// Text and bytes lent to a plugin for one call, as the borrowed forms of the concern protocols take
/// them: `UTF8Span` and `Span<UInt8>`, which cannot outlive the call and cost no allocation.
import Glibc

extension UTF8Span {
    /// Whether the text begins with the bytes of `prefix` (a literal such as a URL scheme), compared
    /// byte for byte with no Unicode normalization (`String.hasPrefix` compares characters).
    /// Inlined, so that a literal prefix becomes a comparison of a few words. The bytes are read
    /// through `_withUnsafeBufferPointer`, which the standard library emits into its caller (`span`
    /// is a call into the runtime library).
    @inlinable @inline(__always)
    public func hasBytePrefix(_ prefix: StaticString) -> Bool {
        prefix.withUTF8Buffer { prefix in
            _withUnsafeBufferPointer { bytes in
                guard prefix.count <= bytes.count else { return false }
                guard let start = bytes.baseAddress, let wanted = prefix.baseAddress else { return true }
                return memcmp(start, wanted, prefix.count) == 0
            }
        }
    }
}

/// Runs `body` with the `count` bytes at `bytes` (none for NULL) as text: borrowed when they are
/// valid UTF-8, else repaired with U+FFFD into a `String` first (one allocation).
///
/// ASCII, what URLs and JSON options nearly always are, is recognized eight bytes at a time and lent
/// without the standard library's validation, which reads a byte at a time (twice as long here).
/// It is marked the likely case, so that its path is the callback's straight line.
@inlinable @inline(__always)
package func withUTF8Span<Result>(_ bytes: UnsafePointer<UInt8>?, count: Int, _ body: (UTF8Span) -> Result) -> Result {
    let buffer = lentBuffer(bytes, count: count)
    if _fastPath(isASCII(buffer)) { return body(unsafe UTF8Span(unchecked: buffer.span, isKnownASCII: true)) }
    if let text = try? UTF8Span(validating: buffer.span) { return body(text) }
    let repaired = String(decoding: buffer, as: UTF8.self)
    return body(repaired.utf8Span)
}

/// The `count` bytes at `bytes` as a C callback receives them: empty for NULL or a count below one.
@inlinable @inline(__always)
package func lentBuffer(_ bytes: UnsafePointer<UInt8>?, count: Int) -> UnsafeBufferPointer<UInt8> {
    guard let bytes, count > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
    return UnsafeBufferPointer(start: bytes, count: count)
}

/// Whether every byte of `buffer` is ASCII (below 0x80): eight bytes at a time, the last eight
/// (or, below eight, four) read overlapping the ones before, so a short text takes two or three loads.
@inlinable @inline(__always)
package func isASCII(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
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

extension EventText {
    /// Runs `body` with the text as a `UTF8Span` (bytes that are not UTF-8 are repaired with U+FFFD).
    @inlinable
    package func withUTF8Span<Result>(_ body: (UTF8Span) -> Result) -> Result {
        switch storage {
        case .string(let string):
            body(string.utf8Span)
        case .bytes(let bytes):
            bytes.withUnsafeBufferPointer { PlugboardPluginAPI.withUTF8Span($0.baseAddress, count: $0.count, body) }
        }
    }
}
