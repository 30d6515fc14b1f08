import Glibc

/// What a directory entry is, as far as the facade cares: symbolic links are
/// reported, never followed, and devices, FIFOs and sockets are all "other".
public enum FileKind: String, Sendable, Hashable {
    /// A regular file.
    case file
    /// A directory.
    case directory
    /// A symbolic link (the facade refuses to go through it).
    case symbolicLink
    /// A FIFO, socket or device.
    case other

    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .file
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symbolicLink
        default: self = .other
        }
    }
}
