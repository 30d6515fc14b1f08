/// One name in a directory listing, with its kind, so callers can tell
/// folders from files without another call per entry.
public struct DirectoryEntry: Sendable, Hashable {
    /// The entry's name (a single component).
    public let name: String
    /// What the entry itself is; a symbolic link is reported as such.
    public let kind: FileKind

    /// An entry; normally produced by `listContents`.
    public init(name: String, kind: FileKind) {
        self.name = name
        self.kind = kind
    }
}
