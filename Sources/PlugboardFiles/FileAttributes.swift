#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemPackage

/// What a caller may want to know about an entry, gathered from one open
/// descriptor so all fields describe the same file.
public struct FileAttributes: Sendable, Hashable {
    /// Size in bytes (for a symbolic link, the length of its target path).
    public let size: UInt64
    /// What the entry is.
    public let kind: FileKind
    /// The permission bits, including set-user-ID, set-group-ID and sticky.
    public let permissions: FilePermissions
    /// The owner's user ID.
    public let ownerID: UInt32
    /// The owner's user name, when the user database knows the ID.
    public let ownerName: String?
    /// When the contents last changed.
    public let modificationDate: Date
    /// When the file was created, if the kernel and file system record it
    /// (statx birth time); nil otherwise, never a guess.
    public let creationDate: Date?

    /// Attributes; normally produced by `attributes(of:in:)`.
    public init(
        size: UInt64, kind: FileKind, permissions: FilePermissions, ownerID: UInt32,
        ownerName: String?, modificationDate: Date, creationDate: Date?
    ) {
        self.size = size
        self.kind = kind
        self.permissions = permissions
        self.ownerID = ownerID
        self.ownerName = ownerName
        self.modificationDate = modificationDate
        self.creationDate = creationDate
    }
}
