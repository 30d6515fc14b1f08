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

/// Runs `body` with the `count` bytes at `bytes` (none for NULL) lent as text, unchecked: the host
/// passes plugins UTF-8 only (the C ABI's promise, which a plugin built for 1.5 can rely on, as an
/// older host refuses it), so the text is validated once, where the host made it, not again in
/// every plugin.
@inlinable @inline(__always)
package func withUTF8Span<Result>(_ bytes: UnsafePointer<UInt8>?, count: Int, _ body: (UTF8Span) -> Result) -> Result {
    body(unsafe UTF8Span(unchecked: lentBuffer(bytes, count: count).span))
}

/// The `count` bytes at `bytes` as a C callback receives them: empty for NULL or a count below one.
@inlinable @inline(__always)
package func lentBuffer(_ bytes: UnsafePointer<UInt8>?, count: Int) -> UnsafeBufferPointer<UInt8> {
    guard let bytes, count > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
    return UnsafeBufferPointer(start: bytes, count: count)
}

extension EventText {
    /// Runs `body` with the text as a `UTF8Span`.
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
