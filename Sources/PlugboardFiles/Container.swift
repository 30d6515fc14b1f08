#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import PlugboardSystem
import SystemPackage

/// The directory tree one application may use, and nothing outside it.
///
/// The root path is chosen by the host and trusted (symbolic links in it are
/// followed); everything below it is reached only through `FileFacade`,
/// which never follows a symbolic link.
public struct Container: Sendable, Hashable {
    /// The absolute, lexically normalized root path.
    public let rootPath: String

    /// The root as a file URL, for Foundation-based callers.
    public var root: URL {
        URL(fileURLWithPath: rootPath, isDirectory: true)
    }

    /// A container rooted at `rootPath`, which must be absolute.
    public init(rootPath: String) throws(FileFacadeError) {
        let context = ErrorContext(operation: .openContainer, directory: nil, name: rootPath)
        if rootPath.utf8.contains(0) { throw context.error(.invalidName(.containsNUL)) }
        let path = FilePath(rootPath)
        guard path.isAbsolute else { throw context.error(.invalidName(.notAbsolute)) }
        self.rootPath = path.lexicallyNormalized().string
    }

    /// A container rooted at the file URL `root`.
    public init(root: URL) throws(FileFacadeError) {
        guard root.isFileURL else {
            throw FileFacadeError(
                operation: .openContainer, directory: nil, name: root.absoluteString, reason: .notAFileURL)
        }
        try self.init(rootPath: root.path(percentEncoded: false))
    }

    /// The container of `appName` at its default place (see `defaultRootPath`).
    public init(
        appName: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(FileFacadeError) {
        try self.init(rootPath: Self.defaultRootPath(appName: appName, environment: environment))
    }

    /// Where an application's container lives unless the host says otherwise:
    /// `$XDG_DATA_HOME/plugboard/<appName>`, or
    /// `$HOME/.local/share/plugboard/<appName>` when XDG_DATA_HOME is unset,
    /// empty or relative (as the XDG Base Directory specification asks).
    ///
    /// `appName` becomes one path component, so it must be a valid single
    /// name: not empty, no '/', no NUL, not "." or "..".
    public static func defaultRootPath(
        appName: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(FileFacadeError) -> String {
        let context = ErrorContext(operation: .resolveDefaultRoot, directory: nil, name: appName)
        _ = try SandboxedName(validatingComponent: appName, context)
        let base: String
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            base = dataHome
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/.local/share"
        } else {
            throw context.error(.noHomeDirectory)
        }
        return FilePath(base).appending("plugboard").appending(appName).lexicallyNormalized().string
    }

    /// The absolute path of a standard directory.
    public func path(of directory: AppDirectory) -> String {
        absolutePath(of: directory.relativePath)
    }

    /// The file URL of a standard directory.
    public func url(of directory: AppDirectory) -> URL {
        URL(fileURLWithPath: path(of: directory), isDirectory: true)
    }

    /// Creates the root (like `mkdir -p`) and the four standard directories,
    /// all private (mode 0700). Safe to call every launch: existing
    /// directories are kept as they are, so pointing the container at an
    /// existing folder never changes that folder's permissions.
    ///
    /// A standard directory that exists as a symbolic link or a file is
    /// refused, not replaced.
    public func createDirectories() throws(FileFacadeError) {
        let rootContext = ErrorContext(operation: .createDirectories, directory: nil, name: rootPath)
        try rootContext.attempt { () throws(Errno) in
            if try Self.makeDirectoryWithParents(rootPath) {
                try DirectoryDescriptor.open(absolutePath: rootPath).setPermissions(Self.privateMode)
            }
        }
        for directory in AppDirectory.allCases {
            let context = ErrorContext(
                operation: .createDirectories, directory: nil, name: directory.relativePath)
            try context.attempt { () throws(Errno) in
                var current = try DirectoryDescriptor.open(absolutePath: rootPath)
                for component in directory.components {
                    current = try current.makeAndOpenSubdirectory(component, mode: Self.privateMode)
                }
            }
        }
    }

    /// Removes everything inside `tmp` (not `tmp` itself). Symbolic links
    /// are removed, never followed, so nothing outside is touched.
    public func emptyTemporaryDirectory() throws(FileFacadeError) {
        let context = ErrorContext(
            operation: .emptyTemporaryDirectory, directory: nil, name: AppDirectory.tmp.relativePath)
        let temporary = try openDirectory(.tmp, context)
        try context.attempt { () throws(Errno) in try temporary.removeContents() }
    }

    /// Opens a standard directory, walking from the root without following
    /// symbolic links.
    func openDirectory(_ directory: AppDirectory, _ context: ErrorContext) throws(FileFacadeError)
        -> DirectoryDescriptor
    {
        try context.attempt { () throws(Errno) in
            var current = try DirectoryDescriptor.open(absolutePath: rootPath)
            for component in directory.components {
                current = try current.openSubdirectory(component)
            }
            return current
        }
    }

    /// The absolute path of a path relative to the root.
    func absolutePath(of relativePath: String) -> String {
        rootPath == "/" ? "/" + relativePath : rootPath + "/" + relativePath
    }

    private static let privateMode: mode_t = 0o700

    /// Whether the last component was created now.
    private static func makeDirectoryWithParents(_ path: String) throws(Errno) -> Bool {
        var prefix = ""
        var created = false
        for component in path.utf8.split(separator: UInt8(ascii: "/")) {
            prefix += "/" + String(decoding: component, as: UTF8.self)
            do {
                try systemCall { mkdir(prefix, privateMode) }
                created = true
            } catch .fileExists {
                // Already there; opening the root later checks it is a directory.
                created = false
            }
        }
        return created
    }
}
