import CPlugboard

/// What kind of thing a container path names (`PB_FILE_KIND_*`).
public enum ContainerFileKind: String, Sendable, Equatable {
    case file
    case directory
    case symbolicLink = "symbolic-link"
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
