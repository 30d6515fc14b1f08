#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PathAdapter {
    /// The facade location of a file URL inside the container.
    ///
    /// The URL's path must start with the container root; the rest is a
    /// container path and is checked as strictly (".." is refused, not
    /// resolved, even where it would stay inside).
    public func location(for url: URL) throws(FileFacadeError) -> FileLocation {
        let context = ErrorContext(operation: .adaptPath, directory: nil, name: url.absoluteString)
        guard url.isFileURL else { throw context.error(.notAFileURL) }
        let path = url.path(percentEncoded: false)
        let rootPrefix = container.absolutePath(of: "").utf8
        guard path.utf8.starts(with: rootPrefix) else { throw context.error(.escapesContainer) }
        // The prefix ends with '/', an ASCII byte, so the rest is valid UTF-8.
        let containerPath = String(decoding: path.utf8.dropFirst(rootPrefix.count), as: UTF8.self)
        return try Self.location(forContainerPath: containerPath)
    }

    /// The file URL of a facade location.
    public func url(for location: FileLocation) throws(FileFacadeError) -> URL {
        URL(fileURLWithPath: container.absolutePath(of: try Self.containerPath(for: location)))
    }
}
