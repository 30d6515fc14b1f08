/// Who a plugin is: the part of a plugin the host orders, reports and refuses by.
public struct PluginDescriptor: Sendable, Hashable, Codable {
    /// Reverse-DNS id, unique in a host (see ``PluginID``).
    public let id: PluginID
    /// Human-readable name; the id when the plugin gave none.
    public let name: String
    /// The plugin's own version text.
    public let version: String
    /// Dispatch order: higher first, then by id.
    public let priority: Int32

    /// The most bytes a name or a version may have, as an id may (the C header's rule too): a
    /// plugin's descriptor is held and shown by the host, which takes no more from a plugin.
    public static let maximumTextLength = PluginID.maximumLength

    /// Why a plugin's name or version is refused: the first that is too long; nil when both fit.
    /// A size is only known up to one byte past the limit (a C plugin's text is measured no
    /// further), so the words do not give it.
    public static func refusal(nameBytes: Int, versionBytes: Int) -> String? {
        // Two comparisons, not a loop over a list: this runs for every plugin loaded.
        let what = nameBytes > maximumTextLength ? "name" : versionBytes > maximumTextLength ? "version" : nil
        return what.map { "the \($0) is longer than \(maximumTextLength) bytes, the most allowed" }
    }

    /// Describes a plugin; an empty name falls back to the id.
    public init(id: PluginID, name: String = "", version: String = "0", priority: Int32 = 0) {
        self.id = id
        self.name = name.isEmpty ? id.rawValue : name
        self.version = version
        self.priority = priority
    }

    private enum CodingKeys: String, CodingKey { case id, name, version, priority }

    /// Decodes a descriptor, refusing a name or a version longer than ``maximumTextLength``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .name)
        let version = try container.decode(String.self, forKey: .version)
        if let refusal = Self.refusal(nameBytes: name.utf8.count, versionBytes: version.utf8.count) {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: refusal))
        }
        self.init(id: try container.decode(PluginID.self, forKey: .id), name: name, version: version,
                  priority: try container.decode(Int32.self, forKey: .priority))
    }

    /// The dispatch order: higher priority first, equal priorities by id.
    /// Ids are unique in a host, so this order is total and stable across runs.
    public static func dispatchOrder(_ lhs: PluginDescriptor, _ rhs: PluginDescriptor) -> Bool {
        lhs.priority != rhs.priority ? lhs.priority > rhs.priority : lhs.id.rawValue < rhs.id.rawValue
    }
}
