import SystemPackage

/// The one error every facade operation throws, so callers (and the C host
/// service built on top) can report what was attempted, on which name, and
/// why it failed, without parsing strings.
public struct FileFacadeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the caller asked for; part of the message so a log line stands alone.
    public enum Operation: String, Sendable {
        /// `writeBytes`, `writeText`.
        case write
        /// `readBytes`, `readChunks`, `readText`.
        case read
        /// `delete`.
        case delete
        /// `rename`.
        case rename
        /// `move`.
        case move
        /// `copy`.
        case copy
        /// `changeExtension`.
        case changeExtension = "change extension"
        /// `exists`.
        case checkExistence = "check existence"
        /// `isReadable`.
        case checkReadability = "check readability"
        /// `isWritable`.
        case checkWritability = "check writability"
        /// `listContents`.
        case listContents = "list contents"
        /// `attributes`.
        case readAttributes = "read attributes"
        /// `path(for:in:)`, `url(for:in:)`.
        case resolveName = "resolve name"
        /// `Container.init(rootPath:)`, `Container.init(root:)`.
        case openContainer = "open container"
        /// `Container.defaultRootPath`, `Container.init(appName:)`.
        case resolveDefaultRoot = "resolve default root"
        /// `Container.createDirectories`.
        case createDirectories = "create directories"
        /// `Container.emptyTemporaryDirectory`.
        case emptyTemporaryDirectory = "empty temporary directory"
        /// `PathAdapter` conversions.
        case adaptPath = "check path"
    }

    /// Why a name was rejected before the file system was touched.
    public enum InvalidNameReason: Sendable, Hashable {
        /// Nothing to name: empty string, or a directory prefix with no name after it.
        case empty
        /// C callers would see a truncated name, so NUL is never accepted.
        case containsNUL
        /// "a//b" or a trailing "/": refused so every file has one spelling.
        case emptySegment
        /// "./a" or "a/./b": refused so every file has one spelling.
        case currentDirectorySegment
        /// A control character (U+0001–U+001F, U+007F): it would break a line or
        /// drive a terminal wherever the name is shown. The first one found.
        case containsControlCharacter(Unicode.Scalar)
        /// A component longer than `ContainerPathLimits.componentBytes`; its length in bytes.
        case componentTooLong(bytes: Int)
        /// A container path through more than `ContainerPathLimits.folderDepth` folders; their number.
        case tooDeep(folders: Int)
        /// A container path longer than `ContainerPathLimits.pathBytes`; its length in bytes.
        case tooLong(bytes: Int)
        /// A single component (new name on rename, app name, extension) contained '/'.
        case containsSlash
        /// A new extension contained '.', which would make "the last dot" ambiguous.
        case containsDot
        /// A container root must be an absolute path.
        case notAbsolute
    }

    /// The cause, coarse enough to act on.
    public enum Reason: Sendable, Hashable {
        /// The name was malformed; nothing was touched.
        case invalidName(InvalidNameReason)
        /// The name used "..", or was absolute, and so would leave the container.
        case escapesContainer
        /// A component is a symbolic link; the facade never follows one, wherever it points.
        case symbolicLink
        /// The name, or one of its folders, does not exist.
        case notFound
        /// The destination exists and overwriting was not requested.
        case destinationExists
        /// A folder component of the name is a file (or other non-directory).
        case notADirectory
        /// The operation needs a file but found a directory.
        case isADirectory
        /// The operation needs a regular file but found a FIFO, socket or device.
        case notARegularFile
        /// Only empty directories are deleted; this one has contents.
        case directoryNotEmpty
        /// The system denied access.
        case permissionDenied
        /// The file's bytes are not valid UTF-8, so they cannot be returned as text.
        case notUTF8Text
        /// A container path did not begin with Documents, Documents/Inbox, Library or tmp.
        case outsideAppDirectories
        /// A URL that does not name a local file.
        case notAFileURL
        /// Neither XDG_DATA_HOME nor HOME names an absolute directory.
        case noHomeDirectory
        /// The result (a file's bytes, a listing) holds more than the most bytes the caller takes; that most.
        case tooLarge(limit: Int)
        /// Any other system failure; see `systemError`.
        case systemError
    }

    /// What was attempted.
    public let operation: Operation
    /// The directory `name` is relative to; nil when the error concerns the
    /// container itself or a path that maps to no directory.
    public let directory: AppDirectory?
    /// The name as the caller passed it (for two-name operations, the side that failed).
    public let name: String
    /// Why it failed.
    public let reason: Reason
    /// The system's error, when a system call failed.
    public let systemError: Errno?

    /// Creates an error; the facade is the usual source, tests and adapters may build their own.
    public init(
        operation: Operation, directory: AppDirectory?, name: String,
        reason: Reason, systemError: Errno? = nil
    ) {
        self.operation = operation
        self.directory = directory
        self.name = name
        self.reason = reason
        self.systemError = systemError
    }

    /// One line naming the operation, the thing and the cause, e.g.
    /// `write 'notes/a.txt' in Documents: destination exists (File exists)`.
    public var description: String {
        var line = "\(operation.rawValue) \(shownName)"
        if let directory {
            line += " in \(directory.relativePath)"
        }
        line += ": \(reason.summary)"
        if let systemError {
            line += " (\(systemError))"
        }
        return line
    }

    /// `name` quoted as a message shows it: whole, unless it is longer than
    /// any container path may be (only a refused name is), then its first and
    /// last 32 characters and its length, so the message stays readable.
    private var shownName: String {
        let bytes = name.utf8.count
        guard bytes > ContainerPathLimits.pathBytes else { return "'\(name)'" }
        let scalars = name.unicodeScalars
        return "'\(String(scalars.prefix(32)))…\(String(scalars.suffix(32)))' (\(bytes) bytes)"
    }
}

extension FileFacadeError.Reason {
    /// A short phrase for `FileFacadeError.description` ("name would escape the container").
    public var summary: String {
        switch self {
        case .invalidName(let why): "invalid name: \(why.summary)"
        case .escapesContainer: "name would escape the container"
        case .symbolicLink: "a component is a symbolic link, which is never followed"
        case .notFound: "not found"
        case .destinationExists: "destination exists"
        case .notADirectory: "a folder component is not a directory"
        case .isADirectory: "is a directory"
        case .notARegularFile: "not a regular file"
        case .directoryNotEmpty: "directory not empty"
        case .permissionDenied: "permission denied"
        case .notUTF8Text: "contents are not UTF-8 text"
        case .outsideAppDirectories:
            "path does not start with Documents, Documents/Inbox, Library or tmp"
        case .notAFileURL: "not a file URL"
        case .noHomeDirectory: "neither XDG_DATA_HOME nor HOME is an absolute path"
        case .tooLarge(let limit): "larger than the \(limit) bytes the caller takes"
        case .systemError: "system error"
        }
    }

    /// The reason a failed system call most likely means, so callers can
    /// match on `.notFound` instead of comparing errno values.
    init(_ errno: Errno) {
        switch errno {
        case .noSuchFileOrDirectory: self = .notFound
        case .fileExists: self = .destinationExists
        case .tooManySymbolicLinkLevels: self = .symbolicLink
        case .notDirectory: self = .notADirectory
        case .isDirectory: self = .isADirectory
        case .directoryNotEmpty: self = .directoryNotEmpty
        case .permissionDenied, .notPermitted: self = .permissionDenied
        default: self = .systemError
        }
    }
}

extension FileFacadeError.InvalidNameReason {
    /// A short phrase for `FileFacadeError.description`.
    var summary: String {
        switch self {
        case .empty: "empty"
        case .containsNUL: "contains a NUL byte"
        case .emptySegment: "contains an empty segment ('//' or a trailing '/')"
        case .currentDirectorySegment: "contains a '.' segment"
        case .containsControlCharacter(let character): "contains the control character \(character.codePoint)"
        case .componentTooLong(let bytes):
            "a component is \(bytes) bytes long; the limit is \(ContainerPathLimits.componentBytes)"
        case .tooDeep(let folders):
            "the container path is \(folders) folders deep; the limit is \(ContainerPathLimits.folderDepth)"
        case .tooLong(let bytes):
            "the container path is \(bytes) bytes long; the limit is \(ContainerPathLimits.pathBytes)"
        case .containsSlash: "contains '/'"
        case .containsDot: "contains '.'"
        case .notAbsolute: "not an absolute path"
        }
    }
}

extension Unicode.Scalar {
    /// "U+001B": how the Unicode standard names a code point.
    fileprivate var codePoint: String {
        let digits = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
