import CPlugboard

/// What kind of thing a container path names (`PB_FILE_KIND_*`).
public enum ContainerFileKind: String, Sendable, Equatable {
    /// A regular file.
    case file
    /// A directory (a folder).
    case directory
    /// A symbolic link (never followed by the files service).
    case symbolicLink = "symbolic-link"
    /// Anything else: a socket, a pipe, a device.
    case other

    /// The kind of a `pb_file_kind_t`; an unknown value is ``other``.
    init(_ kind: pb_file_kind_t) {
        switch kind {
        case PB_FILE_KIND_FILE: self = .file
        case PB_FILE_KIND_DIRECTORY: self = .directory
        case PB_FILE_KIND_SYMBOLIC_LINK: self = .symbolicLink
        default: self = .other
        }
    }
}
