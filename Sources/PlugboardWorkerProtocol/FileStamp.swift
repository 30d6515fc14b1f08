/// What makes a file the same file, unchanged: its identity (device and inode), size,
/// modification and change times, owner and permission bits. The worker reports the stamp of the library
/// file it checked in `loaded` (since 1.9), so the host can tell whether that is the file it
/// checked itself before starting the worker.
///
/// Wire format: `device` `u64`, `inode` `u64`, `size` `u64`, `modified-seconds` `i64`,
/// `modified-nanoseconds` `u32`, `changed-seconds` `i64`, `changed-nanoseconds` `u32`,
/// `owner` `u32`, `permissions` `u32`, in this order.
public struct FileStamp: Sendable, Equatable {
    /// The device of the file system holding the file (`st_dev`).
    public var device: UInt64
    /// The file's inode number (`st_ino`).
    public var inode: UInt64
    /// The size in bytes.
    public var size: UInt64
    /// The last modification time: whole seconds since the epoch.
    public var modifiedSeconds: Int64
    /// The last modification time: nanoseconds within the second.
    public var modifiedNanoseconds: UInt32
    /// The last change of the file or its inode (`st_ctim`), which no `utimensat` can set back: whole
    /// seconds since the epoch. A file rewritten in place whose modification time was put back differs here.
    public var changedSeconds: Int64
    /// The last change of the file or its inode: nanoseconds within the second.
    public var changedNanoseconds: UInt32
    /// The owner's user id.
    public var owner: UInt32
    /// The permission bits (`st_mode & 07777`).
    public var permissions: UInt32

    /// A stamp.
    public init(device: UInt64, inode: UInt64, size: UInt64, modifiedSeconds: Int64, modifiedNanoseconds: UInt32,
                changedSeconds: Int64, changedNanoseconds: UInt32, owner: UInt32, permissions: UInt32) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changedSeconds = changedSeconds
        self.changedNanoseconds = changedNanoseconds
        self.owner = owner
        self.permissions = permissions
    }

    /// Appends the stamp's fields.
    func encode(into encoder: inout WireEncoder) {
        encoder.append(device)
        encoder.append(inode)
        encoder.append(size)
        encoder.append(modifiedSeconds)
        encoder.append(modifiedNanoseconds)
        encoder.append(changedSeconds)
        encoder.append(changedNanoseconds)
        encoder.append(owner)
        encoder.append(permissions)
    }

    /// Reads a stamp's fields.
    init(from decoder: inout WireDecoder) throws(WorkerProtocolError) {
        self.init(device: try decoder.readUInt64("loaded.file.device"), inode: try decoder.readUInt64("loaded.file.inode"),
                  size: try decoder.readUInt64("loaded.file.size"),
                  modifiedSeconds: try decoder.readInt64("loaded.file.modified-seconds"),
                  modifiedNanoseconds: try decoder.readUInt32("loaded.file.modified-nanoseconds"),
                  changedSeconds: try decoder.readInt64("loaded.file.changed-seconds"),
                  changedNanoseconds: try decoder.readUInt32("loaded.file.changed-nanoseconds"),
                  owner: try decoder.readUInt32("loaded.file.owner"), permissions: try decoder.readUInt32("loaded.file.permissions"))
    }
}
