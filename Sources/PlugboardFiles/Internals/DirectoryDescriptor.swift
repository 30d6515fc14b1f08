import Glibc
import PlugboardSystem
import SystemPackage

/// An open directory: the anchor of every path operation.
///
/// The facade never hands a multi-component path to the kernel. It opens the
/// container root, then each component with `openat(O_NOFOLLOW |
/// O_DIRECTORY)`, and performs the final operation with an `*at` call on a
/// single component. A symbolic link, or a directory swapped for one between
/// two calls, therefore cannot redirect it outside the container.
///
/// The descriptor is closed when the object goes away; the raw descriptor
/// never leaves this type, so it cannot be used after close.
final class DirectoryDescriptor {
    private let descriptor: CInt

    private init(descriptor: CInt) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Opens the container root. Its path is trusted (the host chose it), so
    /// symbolic links in it are followed; nothing below it is.
    static func open(absolutePath path: String) throws(Errno) -> DirectoryDescriptor {
        let descriptor = try systemCall { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        return DirectoryDescriptor(descriptor: descriptor)
    }

    /// Opens the subdirectory `component`, refusing a symbolic link with
    /// ELOOP (the kernel says ENOTDIR for a link under O_DIRECTORY; the
    /// distinction matters to callers).
    func openSubdirectory(_ component: String) throws(Errno) -> DirectoryDescriptor {
        do {
            let descriptor = try systemCall {
                openat(self.descriptor, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            return DirectoryDescriptor(descriptor: descriptor)
        } catch .notDirectory where (try? kind(of: component)) == .symbolicLink {
            throw .tooManySymbolicLinkLevels
        }
    }

    /// Creates the subdirectory `component` unless it exists, then opens it
    /// (refusing a symbolic link, even one that appeared in between). A new one's
    /// entry is flushed here, so that what is later written into it survives a crash.
    func makeAndOpenSubdirectory(_ component: String, mode: mode_t) throws(Errno) -> DirectoryDescriptor {
        do {
            try systemCall { mkdirat(descriptor, component, mode) }
            try synchronize()
        } catch .fileExists {
            // Already there; opening decides whether it is a usable directory.
        }
        return try openSubdirectory(component)
    }

    /// Opens the file `component` without following a symbolic link, and never as the process's
    /// controlling terminal (a terminal put in the container would otherwise become it).
    func openFile(_ component: String, flags: CInt, mode: mode_t = 0) throws(Errno) -> OpenFile {
        let descriptor = try systemCall {
            openat(self.descriptor, component, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode)
        }
        return OpenFile(descriptor: descriptor)
    }

    /// Creates a regular file in this directory that has no name (`O_TMPFILE`) until ``link(_:as:)``
    /// gives it one: if the process dies first, nothing of it is left. Fails where the file system
    /// cannot make one (EOPNOTSUPP; EISDIR before Linux 3.11).
    func openUnnamedFile(mode: mode_t) throws(Errno) -> OpenFile {
        let descriptor = try systemCall {
            openat(self.descriptor, ".", LinuxSystemCalls.openUnnamedFile | O_WRONLY | O_CLOEXEC, mode)
        }
        return OpenFile(descriptor: descriptor)
    }

    /// Gives the unnamed `file` (``openUnnamedFile(mode:)``) the name `component` here; EEXIST when
    /// the name is taken (the kernel decides atomically), ENOENT without a mounted `/proc`.
    func link(_ file: OpenFile, as component: String) throws(Errno) {
        try systemCall { linkat(AT_FDCWD, file.procPath, descriptor, component, AT_SYMLINK_FOLLOW) }
    }

    /// Removes the entry `component` (a symbolic link itself, never its target).
    func unlink(_ component: String, isDirectory: Bool = false) throws(Errno) {
        try systemCall { unlinkat(descriptor, component, isDirectory ? AT_REMOVEDIR : 0) }
    }

    /// Renames `component` to `newComponent` in `destination`; with
    /// `replacing` false the kernel refuses atomically if the destination exists.
    func rename(
        _ component: String, to destination: DirectoryDescriptor, as newComponent: String, replacing: Bool
    ) throws(Errno) {
        try systemCall {
            LinuxSystemCalls.renameat2(
                descriptor, component, destination.descriptor, newComponent,
                replacing ? 0 : LinuxSystemCalls.renameNoReplace)
        }
    }

    /// `fstatat` of the entry itself (a symbolic link is described, not followed).
    func status(of component: String) throws(Errno) -> stat {
        var status = stat()
        try systemCall { fstatat(descriptor, component, &status, AT_SYMLINK_NOFOLLOW) }
        return status
    }

    /// The kind of the entry itself.
    func kind(of component: String) throws(Errno) -> FileKind {
        FileKind(mode: try status(of: component).st_mode)
    }

    /// Whether the effective user may access the entry itself in `mode`
    /// (`R_OK`, `W_OK`); throws for anything but a plain "no".
    func isAccessible(_ component: String, mode: CInt) throws(Errno) -> Bool {
        do {
            try systemCall { faccessat(descriptor, component, mode, AT_EACCESS | AT_SYMLINK_NOFOLLOW) }
            return true
        } catch .permissionDenied, .readOnlyFileSystem {
            return false
        }
    }

    /// The entries of this directory, without "." and "..", in no
    /// particular order, each with the kind of the entry itself. A name that
    /// is not UTF-8 (made outside the facade) is shown with U+FFFD.
    func entries() throws(Errno) -> [DirectoryEntry] {
        var entries: [DirectoryEntry] = []
        for rawName in try rawEntryNames() {
            var status = stat()
            do {
                try systemCall { fstatat(descriptor, rawName, &status, AT_SYMLINK_NOFOLLOW) }
            } catch .noSuchFileOrDirectory {
                continue  // Removed since the directory was read.
            }
            let name = String(decoding: rawName.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            entries.append(DirectoryEntry(name: name, kind: FileKind(mode: status.st_mode)))
        }
        return entries
    }

    /// Removes everything inside this directory, depth first, removing
    /// symbolic links themselves and never descending through one. Works on
    /// the names' bytes, so names that are not UTF-8 go too.
    ///
    /// A loop, not a recursion, holding one descriptor at a time: it goes
    /// down into a folder with `openat`, and back up through its "..", which
    /// must be the very directory it came from (same device and inode, as
    /// `rm -r` checks), so a tree of any depth (deeper than PATH_MAX, or than
    /// the descriptors a process may hold) is removed with a constant stack.
    /// A folder moved elsewhere meanwhile stops the removal with ENOENT.
    func removeContents() throws(Errno) {
        var current = self
        var pending = try rawEntryNames()
        var ancestors: [RemovalAncestor] = []
        while true {
            if let name = pending.popLast() {
                guard let child = try current.openSubdirectoryOrRemove(name) else { continue }
                ancestors.append(RemovalAncestor(identity: try current.identity(), pending: pending, child: name))
                current = child
                pending = try child.rawEntryNames()
            } else {
                guard let ancestor = ancestors.popLast() else { return }
                let parent = try current.openParent(expecting: ancestor.identity)
                try parent.removeIfPresent(ancestor.child, flags: AT_REMOVEDIR)
                current = parent
                pending = ancestor.pending
            }
        }
    }

    /// A directory `removeContents` went down from: who it is, what is left
    /// to remove in it, and the folder being emptied below it.
    private struct RemovalAncestor {
        let identity: FileIdentity
        let pending: [[CChar]]
        let child: [CChar]
    }

    /// The first entry below this directory (at any depth) that lies more than `depth` levels down
    /// (an entry directly inside is 1 down) or whose path from here, with the `/` before each name,
    /// is longer than `bytes`: its level and that length; nil when every entry fits. Never follows
    /// a symbolic link; holds one descriptor per level it is in, at most `depth`.
    func firstEntryPast(depth: Int, bytes: Int) throws(Errno) -> (depth: Int, bytes: Int)? {
        for name in try rawEntryNames() {
            let length = name.count  // the name's bytes and its NUL: as many as the name and its '/'
            guard depth >= 1, length <= bytes else { return (1, length) }
            let child: DirectoryDescriptor
            do {
                child = DirectoryDescriptor(descriptor: try systemCall {
                    openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                })
            } catch .notDirectory, .tooManySymbolicLinkLevels, .noSuchFileOrDirectory {
                continue  // A file, a link, or gone meanwhile: nothing below it.
            }
            if let below = try child.firstEntryPast(depth: depth - 1, bytes: bytes - length) {
                return (below.depth + 1, below.bytes + length)
            }
        }
        return nil
    }

    /// The device and inode that tell one directory from another.
    private struct FileIdentity: Equatable {
        let device: dev_t
        let inode: ino_t
    }

    private func identity() throws(Errno) -> FileIdentity {
        var status = stat()
        try systemCall { fstat(descriptor, &status) }
        return FileIdentity(device: status.st_dev, inode: status.st_ino)
    }

    /// Opens the subdirectory `rawName` for removal, or removes the entry
    /// right away when it is a file or a symbolic link; nil when there is
    /// nothing to descend into (removed now, or gone already).
    private func openSubdirectoryOrRemove(_ rawName: [CChar]) throws(Errno) -> DirectoryDescriptor? {
        do {
            return DirectoryDescriptor(descriptor: try systemCall {
                openat(descriptor, rawName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            })
        } catch .notDirectory, .tooManySymbolicLinkLevels {
            try removeIfPresent(rawName, flags: 0)
            return nil
        } catch .noSuchFileOrDirectory {
            return nil
        }
    }

    /// Opens "..", which must be the directory `expected` names; ENOENT
    /// when it is not (this directory was moved), as `fts` reports it.
    private func openParent(expecting expected: FileIdentity) throws(Errno) -> DirectoryDescriptor {
        let parent = DirectoryDescriptor(descriptor: try systemCall {
            openat(descriptor, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        })
        guard try parent.identity() == expected else { throw .noSuchFileOrDirectory }
        return parent
    }

    private func removeIfPresent(_ rawName: [CChar], flags: CInt) throws(Errno) {
        do {
            try systemCall { unlinkat(descriptor, rawName, flags) }
        } catch .noSuchFileOrDirectory {
            // Removed by someone else meanwhile: the goal is reached.
        }
    }

    private static let currentDirectory = Array(".".utf8CString)
    private static let parentDirectory = Array("..".utf8CString)

    /// The NUL-terminated names in this directory, except "." and "..".
    private func rawEntryNames() throws(Errno) -> [[CChar]] {
        // fdopendir owns the descriptor it is given, so give it a duplicate.
        let duplicate = try systemCall { fcntl(descriptor, F_DUPFD_CLOEXEC, 0) }
        guard let stream = fdopendir(duplicate) else {
            let failure = Errno(rawValue: errno)
            close(duplicate)
            throw failure
        }
        defer { closedir(stream) }
        var names: [[CChar]] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw Errno(rawValue: errno) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                bytes.prefix { $0 != 0 }.map { CChar(bitPattern: $0) } + [0]
            }
            if name != Self.currentDirectory && name != Self.parentDirectory {
                names.append(name)
            }
        }
    }

    /// Flushes the directory itself, so a rename into it survives a crash.
    func synchronize() throws(Errno) {
        try systemCall { fsync(descriptor) }
    }

    /// Sets this directory's permission bits.
    func setPermissions(_ mode: mode_t) throws(Errno) {
        try systemCall { fchmod(descriptor, mode) }
    }
}
