/// A file as the facade addresses it: a standard directory and a name
/// relative to it. The currency `PathAdapter` converts paths and URLs into.
public struct FileLocation: Sendable, Hashable {
    /// The standard directory the name is relative to.
    public let directory: AppDirectory
    /// The name inside `directory`, e.g. "notes/2026/today.txt".
    public let name: String

    /// A location; the name is validated when it is used.
    public init(directory: AppDirectory, name: String) {
        self.directory = directory
        self.name = name
    }
}
