/// Text lent to a plugin for one call, as the concern protocols' borrowed forms take it.
import Glibc

/// UTF-8 text lent for one call: a view of the host's bytes that cannot outlive the call, costs no
/// allocation and no copy, and is made with no call into the runtime (so a plugin that never reads
/// a text pays nothing for it). The host passes plugins UTF-8 only, so the bytes are valid UTF-8.
///
/// Read it as bytes (``bytes``, ``hasBytePrefix(_:)``, ``bytesEqual(to:)``), as the standard
/// library's `UTF8Span` (``utf8Span``, for its Unicode views), or copy it: `String(copying: text)`.
@frozen
public struct TextSpan: ~Escapable, BitwiseCopyable {
    /// The text's UTF-8 bytes.
    public let bytes: Span<UInt8>

    /// Lends `bytes` as text without checking them: they must be valid UTF-8.
    @inlinable @inline(__always) @_lifetime(copy bytes)
    @unsafe public init(unchecked bytes: Span<UInt8>) {
        self.bytes = bytes
    }

    /// Lends the text of `text`.
    @inlinable @_lifetime(copy text)
    public init(_ text: UTF8Span) {
        bytes = text.span
    }

    /// The number of UTF-8 bytes.
    @inlinable
    public var count: Int { bytes.count }

    /// Whether the text is empty.
    @inlinable
    public var isEmpty: Bool { bytes.isEmpty }

    /// The text as the standard library's `UTF8Span` (characters, Unicode scalars, normalization).
    /// Made by a call into the runtime library.
    public var utf8Span: UTF8Span {
        @_lifetime(copy self) get { unsafe UTF8Span(unchecked: bytes) }
    }

    /// Whether the text begins with the bytes of `prefix` (a literal such as a URL scheme), compared
    /// byte for byte with no Unicode normalization (`String.hasPrefix` compares characters).
    /// Inlined, so that a literal prefix becomes a comparison of a few words.
    @inlinable @inline(__always)
    public func hasBytePrefix(_ prefix: StaticString) -> Bool {
        prefix.withUTF8Buffer { prefix in
            bytes.withUnsafeBufferPointer { bytes in
                guard prefix.count <= bytes.count else { return false }
                guard let start = bytes.baseAddress, let wanted = prefix.baseAddress else { return true }
                return memcmp(start, wanted, prefix.count) == 0
            }
        }
    }

    /// Whether the text is `other`'s bytes, byte for byte (`"literal".utf8`, an array…).
    @inlinable
    public func bytesEqual(to other: some Sequence<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { $0.elementsEqual(other) }
    }
}

extension String {
    /// A copy of `text`.
    public init(copying text: TextSpan) {
        self = text.bytes.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
    }
}

/// Runs `body` with the `count` bytes at `bytes` (none for NULL) lent as text, unchecked: the host
/// passes plugins UTF-8 only (the C ABI's promise, which a plugin built for 1.5 can rely on, as an
/// older host refuses it), so the text is validated once, where the host made it, not again in
/// every plugin.
@inlinable @inline(__always)
package func withTextSpan<Result>(_ bytes: UnsafePointer<UInt8>?, count: Int, _ body: (TextSpan) -> Result) -> Result {
    body(unsafe TextSpan(unchecked: Span(_unsafeElements: lentBuffer(bytes, count: count))))
}

/// The `count` bytes at `bytes` as a C callback receives them: empty for NULL or a count below one.
@inlinable @inline(__always)
package func lentBuffer(_ bytes: UnsafePointer<UInt8>?, count: Int) -> UnsafeBufferPointer<UInt8> {
    guard let bytes, count > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
    return UnsafeBufferPointer(start: bytes, count: count)
}

extension EventText {
    /// Runs `body` with the text lent as a ``TextSpan``.
    @inlinable
    package func withTextSpan<Result>(_ body: (TextSpan) -> Result) -> Result {
        switch storage {
        case .string(var string):
            string.withUTF8 { PlugboardPluginAPI.withTextSpan($0.baseAddress, count: $0.count, body) }
        case .bytes(let bytes):
            bytes.withUnsafeBufferPointer { PlugboardPluginAPI.withTextSpan($0.baseAddress, count: $0.count, body) }
        }
    }
}
