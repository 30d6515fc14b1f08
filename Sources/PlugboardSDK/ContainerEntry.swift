/// One entry of a directory listing, from ``ContainerFiles/list(_:)``.
public struct ContainerEntry: Sendable, Equatable {
    /// The entry's name, one path component.
    public let name: String
    /// What the entry is.
    public let kind: ContainerFileKind

    /// Makes an entry.
    public init(name: String, kind: ContainerFileKind) {
        self.name = name
        self.kind = kind
    }

    /// The entries of the host's listing: a JSON array of `{"name": …, "kind": …}` objects
    /// (`services/files.h`); nil when `json` is anything else (other keys are ignored).
    static func entries(listingJSON json: [UInt8]) -> [ContainerEntry]? {
        var reader = JSONStringObjectReader(json)
        guard let objects = reader.arrayOfStringObjects() else { return nil }
        var entries: [ContainerEntry] = []
        for object in objects {
            guard let name = object["name"], let kind = object["kind"].flatMap(ContainerFileKind.init(rawValue:)) else {
                return nil
            }
            entries.append(ContainerEntry(name: name, kind: kind))
        }
        return entries
    }
}
