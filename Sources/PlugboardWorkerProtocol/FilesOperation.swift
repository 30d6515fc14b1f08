/// The files-service function a plugin in a worker called, forwarded in a
/// `files` request and answered by a `serviceReply` (payload per operation
/// in WORKER-PROTOCOL.md). `free_buffer` and `last_error` never cross the
/// channel: the worker answers them itself.
///
/// Wire format: the raw values never change.
public enum FilesOperation: UInt8, Sendable, CaseIterable {
    /// `write(path, data, flags)`.
    case write = 1
    /// `read(path)`; the reply's payload is the file.
    case read = 2
    /// `remove(path)`.
    case remove = 3
    /// `rename(path, second path = new name, flags)`.
    case rename = 4
    /// `move(path, second path = destination, flags)`.
    case move = 5
    /// `copy(path, second path = destination, flags)`.
    case copy = 6
    /// `change_extension(path, second path = extension, flags)`; the reply's payload is the new path.
    case changeExtension = 7
    /// `list(path)`; the reply's payload is the JSON listing.
    case list = 8
    /// `attributes(path)`; the reply's payload is the attributes record.
    case attributes = 9
    /// `exists(path)`; the reply's payload is one bool byte.
    case exists = 10

    /// The name of the C function (`pb_files_t`'s member) a plugin called, for messages.
    public var name: String {
        switch self {
        case .write: "write"
        case .read: "read"
        case .remove: "remove"
        case .rename: "rename"
        case .move: "move"
        case .copy: "copy"
        case .changeExtension: "change_extension"
        case .list: "list"
        case .attributes: "attributes"
        case .exists: "exists"
        }
    }
}
