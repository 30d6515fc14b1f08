import Glibc

/// Whether a plugin file is complete enough to be taken by a running host.
enum LibraryFile {
    /// `F_SETLEASE` (`F_LINUX_SPECIFIC_BASE + 0`): Glibc exports it only under `_GNU_SOURCE`.
    private static let setLease: Int32 = 1024

    /// Whether a process has the file at `path` open for writing: its writer has not closed it yet.
    ///
    /// Asked of the kernel with a read lease, which it grants only while no process has the file open
    /// for writing; the lease is let go at once. A lease needs the file's owner (or CAP_LEASE): for a
    /// file the host may not lease, the answer is no, and only the quiet time a watching host waits
    /// after the folder's last change keeps a file still being written out (see ``PluginFolderWatcher``).
    static func isOpenForWriting(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard fcntl(descriptor, setLease, Int32(F_RDLCK)) == 0 else { return errno == EAGAIN || errno == EBUSY }
        _ = fcntl(descriptor, setLease, Int32(F_UNLCK))
        return false
    }
}
