/// Where a plugin came from: compiled into the host, or a loaded library.
public enum PluginSource: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Registered in-process by Swift code.
    case builtIn
    /// Added by the library at this path.
    case library(path: String)

    public var description: String {
        switch self {
        case .builtIn: "built-in"
        case .library(let path): path
        }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = text == "built-in" ? .builtIn : .library(path: text)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
