/// Text and bytes lent to a plugin for one call, as the borrowed forms of the concern protocols take
/// them: `UTF8Span` and `Span<UInt8>`, which cannot outlive the call and cost no allocation.

extension UTF8Span {
    /// Whether the text begins with the bytes of `prefix`, compared byte for byte with no Unicode
    /// normalization (right for ASCII such as a URL scheme; `String.hasPrefix` compares characters).
    public func hasBytePrefix(_ prefix: String) -> Bool {
        let bytes = span
        guard prefix.utf8.count <= bytes.count else { return false }
        var index = 0
        for byte in prefix.utf8 {
            guard bytes[index] == byte else { return false }
            index += 1
        }
        return true
    }
}

/// Runs `body` with the `count` bytes at `bytes` (none for NULL) as text: borrowed when they are
/// valid UTF-8, else repaired with U+FFFD into a `String` first (one allocation).
@inlinable
package func withUTF8Span<Result>(_ bytes: UnsafePointer<UInt8>?, count: Int, _ body: (UTF8Span) -> Result) -> Result {
    let buffer = UnsafeBufferPointer(start: count > 0 ? bytes : nil, count: bytes == nil ? 0 : count)
    if let text = try? UTF8Span(validating: buffer.span) { return body(text) }
    let repaired = String(decoding: buffer, as: UTF8.self)
    return body(repaired.utf8Span)
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
