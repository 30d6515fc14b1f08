import CPlugboard

/// A file's attributes, from ``ContainerFiles/attributes(of:)``.
public struct ContainerFileAttributes: Sendable, Equatable {
    /// What the path names.
    public let kind: ContainerFileKind
    /// Size in bytes.
    public let size: UInt64
    /// POSIX permission bits (e.g. 0o644).
    public let permissions: UInt32
    /// The owner's user id.
    public let ownerID: UInt32
    /// Last modification, since 1970-01-01 UTC.
    public let modified: Duration
    /// Creation, since 1970-01-01 UTC; nil when the file system does not record it.
    public let created: Duration?

    /// The attributes the host filled in `record`.
    init(_ record: pb_file_attributes_t) {
        kind = ContainerFileKind(record.kind)
        size = record.size
        permissions = record.permissions
        ownerID = record.owner_id
        modified = .nanoseconds(record.modified_ns)
        created = record.created_ns == 0 ? nil : .nanoseconds(record.created_ns)
    }
}
