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

    /// Describes a plugin; an empty name falls back to the id.
    public init(id: PluginID, name: String = "", version: String = "0", priority: Int32 = 0) {
        self.id = id
        self.name = name.isEmpty ? id.rawValue : name
        self.version = version
        self.priority = priority
    }

    /// The dispatch order: higher priority first, equal priorities by id.
    /// Ids are unique in a host, so this order is total and stable across runs.
    public static func dispatchOrder(_ lhs: PluginDescriptor, _ rhs: PluginDescriptor) -> Bool {
        lhs.priority != rhs.priority ? lhs.priority > rhs.priority : lhs.id.rawValue < rhs.id.rawValue
    }
}
