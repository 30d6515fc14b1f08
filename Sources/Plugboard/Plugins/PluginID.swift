/// A validated reverse-DNS plugin id such as `com.example.deeplinks`.
///
/// 3 to 255 bytes of ASCII letters, digits, `-` and `_`, in at least two
/// non-empty labels separated by dots; the C header states the same rule.
public struct PluginID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The id text.
    public let rawValue: String

    /// Why a text is not a plugin id.
    public enum Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case tooLong(bytes: Int)
        case forbiddenCharacter(Character)
        case notReverseDNS

        public var description: String {
            switch self {
            case .empty: "the id is empty"
            case .tooLong(let bytes): "the id is \(bytes) bytes long; at most 255 are allowed"
            case .forbiddenCharacter(let c): "the id contains \(String(reflecting: String(c))); only letters, digits, '-', '_' and '.' are allowed"
            case .notReverseDNS: "the id is not reverse-DNS (two or more non-empty labels separated by dots, like com.example.name)"
            }
        }
    }

    /// Validates `text` as a plugin id.
    public init(validating text: String) throws(Invalid) {
        let bytes = text.utf8
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= 255 else { throw .tooLong(bytes: bytes.count) }
        for c in text where !(c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_" || c == ".")) {
            throw .forbiddenCharacter(c)
        }
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }) else { throw .notReverseDNS }
        rawValue = text
    }

    /// An id the host itself spells, known to be valid.
    init(unchecked text: String) {
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
