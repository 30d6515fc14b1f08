/// The standard directories of a sandboxed container.
///
/// Callers name a directory instead of spelling a path, so every file the
/// facade touches is anchored in one of these four places.
public enum AppDirectory: String, CaseIterable, Sendable, Hashable {
    /// User-visible documents.
    case documents
    /// Files handed to the application by others; lives inside `Documents`.
    case inbox
    /// Application support data the user does not manage directly.
    case library
    /// Scratch space that `Container.emptyTemporaryDirectory()` may wipe.
    case tmp

    /// The directory's path relative to the container root, as C callers and
    /// the `PathAdapter` spell it ("Documents/Inbox").
    public var relativePath: String {
        components.joined(separator: "/")
    }

    /// The directory whose ``relativePath`` is `relativePath` ("Documents/Inbox"); nil for any
    /// other text.
    public init?(relativePath: String) {
        guard let directory = Self.allCases.first(where: { $0.relativePath == relativePath }) else { return nil }
        self = directory
    }

    /// The path components below the container root, opened one by one
    /// without following symbolic links.
    var components: [String] {
        switch self {
        case .documents: ["Documents"]
        case .inbox: ["Documents", "Inbox"]
        case .library: ["Library"]
        case .tmp: ["tmp"]
        }
    }
}
