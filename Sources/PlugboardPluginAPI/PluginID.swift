/// A validated reverse-DNS plugin id such as `com.example.deeplinks`.
///
/// 3 to 255 bytes of ASCII letters, digits, `-` and `_`, in at least two
/// non-empty labels separated by dots; the C header states the same rule.
public struct PluginID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The id text.
    public let rawValue: String

    /// The longest id, in bytes (the C header's rule too).
    public static let maximumLength = 255

    /// Why a text is not a plugin id.
    public enum Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case tooLong(bytes: Int)
        case forbiddenCharacter(Character)
        case notReverseDNS

        public var description: String {
            switch self {
            case .empty: "the id is empty"
            case .tooLong(let bytes): "the id is \(bytes) bytes long; at most \(PluginID.maximumLength) are allowed"
            case .forbiddenCharacter(let c): "the id contains \(String(reflecting: String(c))); only letters, digits, '-', '_' and '.' are allowed"
            case .notReverseDNS: "the id is not reverse-DNS (two or more non-empty labels separated by dots, like com.example.name)"
            }
        }
    }

    /// Validates `text` as a plugin id.
    ///
    /// One pass over the UTF-8 bytes (the rule is ASCII-only); only a text that
    /// breaks it is walked again by `Character`, to name the offending one.
    public init(validating text: String) throws(Invalid) {
        let bytes = text.utf8
        let count = bytes.count
        guard count > 0 else { throw .empty }
        guard count <= Self.maximumLength else { throw .tooLong(bytes: count) }
        /// 0: every byte allowed, the labels well formed; 1: a forbidden byte; 2: an empty label or no dot.
        let verdict = bytes.withContiguousStorageIfAvailable(Self.check) ?? Self.check(Array(bytes))
        if verdict == 1 {
            for c in text where !(c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_" || c == ".")) {
                throw .forbiddenCharacter(c)
            }
        }
        guard verdict == 0 else { throw .notReverseDNS }
        rawValue = text
    }

    /// 0 when `bytes` are ASCII letters, digits, `-`, `_` and `.` in two or more
    /// non-empty dot-separated labels; 1 when a byte is not allowed; 2 when only
    /// the labels are wrong.
    private static func check<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int {
        var dots = 0
        var labelLength = 0
        var emptyLabel = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                labelLength += 1
            case UInt8(ascii: "."):
                if labelLength == 0 { emptyLabel = true }
                dots += 1
                labelLength = 0
            default:
                return 1
            }
        }
        return dots == 0 || emptyLabel || labelLength == 0 ? 2 : 0
    }

    /// An id the host itself spells, known to be valid.
    package init(unchecked text: String) {
        rawValue = text
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(validating: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
