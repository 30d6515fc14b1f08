import Glibc

/// A file's device and inode: what makes two paths the same library.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path` (following symlinks), whether it is a
    /// regular file, and its size in bytes (for the ELF preflight, which then
    /// needs no `fstat` of its own); or the errno text.
    static func of(_ path: String) -> Result<(FileIdentity, isRegular: Bool, size: Int), SystemError> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(.current()) }
        let identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        return .success((identity, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size)))
    }
}

/// The text of an `errno`, captured right after the failing call.
struct SystemError: Error, Sendable, CustomStringConvertible {
    let code: Int32

    static func current() -> SystemError { SystemError(code: errno) }

    var description: String { String(cString: strerror(code)) }
}
