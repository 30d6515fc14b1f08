#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import SystemPackage

/// Describing what is there: listings and attributes.
extension FileFacade {
    /// The entries of `directory` (or of its subfolder `folder`), sorted by
    /// the bytes of their names, as `ls` does in the C locale. Each entry's
    /// kind is that of the entry itself; symbolic links are not followed.
    /// A name that is not UTF-8 (made outside the facade) is listed with
    /// U+FFFD in place of the bad bytes, and cannot be addressed by that name.
    public func listContents(of directory: AppDirectory, folder: String? = nil) throws(FileFacadeError)
        -> [DirectoryEntry]
    {
        let context = ErrorContext(operation: .listContents, directory: directory, name: folder ?? "")
        var listed = try container.openDirectory(directory, context)
        if let folder {
            let validFolder = try SandboxedName(validating: folder, context)
            listed = try context.attempt { () throws(Errno) in
                var current = listed
                for component in validFolder.components {
                    current = try current.openSubdirectory(component)
                }
                return current
            }
        }
        let entries = try context.attempt { () throws(Errno) in try listed.entries() }
        return entries.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// The attributes of the entry `name` itself (a final symbolic link is
    /// described, not followed), all read from one descriptor.
    public func attributes(of name: String, in directory: AppDirectory) throws(FileFacadeError)
        -> FileAttributes
    {
        let context = ErrorContext(operation: .readAttributes, directory: directory, name: name)
        let validName = try SandboxedName(validating: name, context)
        let parent = try openParent(of: validName, in: directory, context)
        let entry = try context.attempt { () throws(Errno) in
            try parent.openFile(validName.leaf, flags: LinuxSystemCalls.openPathOnly)
        }
        return try Self.attributes(of: entry, context)
    }

    /// The attributes of the standard directory `directory` itself, reached from the root
    /// without following symbolic links; `.notFound` when it is missing.
    public func attributes(of directory: AppDirectory) throws(FileFacadeError) -> FileAttributes {
        let context = ErrorContext(operation: .readAttributes, directory: nil, name: directory.relativePath)
        let entry = try context.attempt { () throws(Errno) in
            var parent = try DirectoryDescriptor.open(absolutePath: container.rootPath)
            for component in directory.components.dropLast() { parent = try parent.openSubdirectory(component) }
            return try parent.openFile(directory.components.last ?? "", flags: LinuxSystemCalls.openPathOnly)
        }
        return try Self.attributes(of: entry, context)
    }

    /// The attributes of the open `entry`.
    private static func attributes(of entry: OpenFile, _ context: ErrorContext) throws(FileFacadeError) -> FileAttributes {
        let status = try context.attempt { () throws(Errno) in try entry.status() }
        return FileAttributes(
            size: UInt64(status.st_size),
            kind: FileKind(mode: status.st_mode),
            permissions: FilePermissions(rawValue: status.st_mode & 0o7777),
            ownerID: status.st_uid,
            ownerName: userName(of: status.st_uid),
            modificationDate: date(status.st_mtim),
            creationDate: entry.birthTime().map(date))
    }

    private static func date(_ time: timespec) -> Date {
        Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
    }

    private static func userName(of userID: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let status = getpwuid_r(userID, &entry, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }
}
