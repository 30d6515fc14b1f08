/// Lets code that speaks container paths ("Documents/notes/a.txt", as a C
/// plugin passes them) and code that speaks file URLs use the facade, which
/// speaks (directory, name), without changing any of them: the classic
/// Adapter.
///
/// The core is plain String in, String out, with no Foundation types, so it
/// can back a C host service directly; the URL view lives in
/// `PathAdapter+URL.swift`.
///
/// A container path is relative to the container root and starts with one
/// of the standard directories; the longest one wins, so
/// "Documents/Inbox/a" is (inbox, "a") rather than (documents, "Inbox/a").
/// The whole path is validated with the facade's name rules first:
/// "Documents/../x", "/etc/passwd", "Documents//a" and "Desktop/a" are all
/// refused.
public struct PathAdapter: Sendable {
    /// The container whose root anchors the URL view.
    public let container: Container

    /// An adapter for paths and URLs inside `container`.
    public init(container: Container) {
        self.container = container
    }

    /// The facade location a container path names.
    public static func location(forContainerPath path: String) throws(FileFacadeError) -> FileLocation {
        let context = ErrorContext(operation: .adaptPath, directory: nil, name: path)
        let validPath = try SandboxedName(validating: path, context)
        for directory in directoriesLongestFirst {
            let prefix = directory.components
            guard validPath.components.starts(with: prefix, by: { $0.utf8.elementsEqual($1.utf8) }) else {
                continue
            }
            let name = validPath.components.dropFirst(prefix.count)
            if name.isEmpty { throw context.error(.invalidName(.empty)) }
            return FileLocation(directory: directory, name: name.joined(separator: "/"))
        }
        throw context.error(.outsideAppDirectories)
    }

    /// The container path of a facade location; the inverse of
    /// `location(forContainerPath:)` for every location it returns.
    public static func containerPath(for location: FileLocation) throws(FileFacadeError) -> String {
        let context = ErrorContext(operation: .adaptPath, directory: location.directory, name: location.name)
        _ = try SandboxedName(validating: location.name, context)
        return location.directory.relativePath + "/" + location.name
    }

    private static let directoriesLongestFirst = AppDirectory.allCases.sorted {
        $0.relativePath.utf8.count > $1.relativePath.utf8.count
    }
}
