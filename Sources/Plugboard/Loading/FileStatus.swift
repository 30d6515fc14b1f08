import Glibc
import PlugboardSystem
import PlugboardWorkerProtocol
import SystemPackage

/// What one `stat` of a plugin file or directory tells the loader: its
/// identity, its kind and size, and the owner and mode the trust rule checks.
struct FileStatus: Sendable {
    let identity: FileIdentity
    let isRegularFile: Bool
    let isDirectory: Bool
    /// The size in bytes, for the ELF preflight (which then needs no `fstat` of its own).
    let size: Int
    /// The permission bits (`st_mode & 07777`).
    let permissions: UInt32
    /// The owner's user id.
    let owner: UInt32
    /// The last modification time, since the epoch, to the nanosecond (part of the scan cache's key).
    let modified: Duration
    /// The last change of the file or its inode (`st_ctim`), which no `utimensat` can set back: part of the
    /// scan cache's key, so a file rewritten in place whose modification time was restored is a change.
    let changed: Duration

    /// The status of the file at `path`, following symbolic links: the real file.
    static func of(_ path: String) throws(Errno) -> FileStatus {
        var info = stat()
        try systemCall { path.withCString { stat($0, &info) } }
        return FileStatus(info)
    }

    /// The status of the file open as `descriptor` (`fstat`: no path looked up).
    static func of(descriptor: Int32) throws(Errno) -> FileStatus {
        var info = stat()
        try systemCall { fstat(descriptor, &info) }
        return FileStatus(info)
    }

    /// Whether `other` is the same file, unchanged as a live pass looks: same inode, size, modification
    /// time, owner and permissions (which the trust rule checks: a `chmod` that makes a refused file
    /// trusted is a change).
    func isSameFile(as other: FileStatus) -> Bool {
        identity == other.identity && size == other.size && modified == other.modified && owner == other.owner
            && permissions == other.permissions
    }

    /// What makes the file the same file, unchanged since it was checked, as a worker reports it: what
    /// ``isSameFile(as:)`` compares and the change time, which catches a file rewritten in place whose
    /// modification time was put back (a live pass leaves it out, so that a link made to a serving
    /// library, or a `chmod` to the mode it has, does not reload it).
    var stamp: FileStamp {
        let (modifiedSeconds, modifiedAttoseconds) = modified.components
        let (changedSeconds, changedAttoseconds) = changed.components
        return FileStamp(device: identity.device, inode: identity.inode, size: UInt64(clamping: size),
                         modifiedSeconds: modifiedSeconds, modifiedNanoseconds: UInt32(clamping: modifiedAttoseconds / 1_000_000_000),
                         changedSeconds: changedSeconds, changedNanoseconds: UInt32(clamping: changedAttoseconds / 1_000_000_000),
                         owner: owner, permissions: permissions)
    }
}

extension FileStatus {
    /// What `info`, a `stat` or `fstat`, says.
    fileprivate init(_ info: stat) {
        self.init(identity: FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)),
                  isRegularFile: (info.st_mode & S_IFMT) == S_IFREG,
                  isDirectory: (info.st_mode & S_IFMT) == S_IFDIR,
                  size: Int(info.st_size), permissions: UInt32(info.st_mode & 0o7777), owner: UInt32(info.st_uid),
                  modified: Duration(info.st_mtim), changed: Duration(info.st_ctim))
    }
}
