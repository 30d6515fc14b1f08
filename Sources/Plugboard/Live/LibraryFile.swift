import Glibc

/// Whether a plugin file is complete enough to be taken by a running host.
enum LibraryFile {
    /// `F_SETLEASE` (`F_LINUX_SPECIFIC_BASE + 0`): Glibc exports it only under `_GNU_SOURCE`.
    private static let setLease: Int32 = 1024
    /// `F_SETSIG`: the signal the kernel sends the lease's holder when a writer breaks the lease.
    private static let setSignal: Int32 = 10

    /// Whether a process has the file at `path` open for writing: its writer has not closed it yet.
    ///
    /// Asked of the kernel with a read lease, which it grants only while no process has the file open
    /// for writing; the lease is let go at once. A lease needs the file's owner (or CAP_LEASE): for a
    /// file the host may not lease, the answer is no, and only the quiet time a watching host waits
    /// after the folder's last change keeps a file still being written out (see ``PluginFolderWatcher``).
    ///
    /// A writer that opens the file while the lease is held breaks it, and the kernel signals this
    /// process: with SIGURG, whose default action is to ignore it, set before the lease is taken. The
    /// default, SIGIO, would end the process.
    static func isOpenForWriting(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard fcntl(descriptor, setSignal, SIGURG) == 0 else { return false }
        guard fcntl(descriptor, setLease, Int32(F_RDLCK)) == 0 else { return errno == EAGAIN || errno == EBUSY }
        _ = fcntl(descriptor, setLease, Int32(F_UNLCK))
        return false
    }
}
