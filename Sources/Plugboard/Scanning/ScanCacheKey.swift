/// What a cached scan of a library is valid for: the file as one `stat` sees it
/// (path, device, inode, size, modification and change times) and the host's ABI. Any
/// change makes the entry stale, and the library is scanned again. The change time is
/// there because no one can set it back: a file rewritten in place at the same size whose
/// modification time was restored (`cp -p`, `rsync --inplace -t`, `touch -d`) still changes it.
///
/// The mode and the owner are not part of the key (the trust rule checks them on every run), but
/// changing either sets the change time, which is, so a `chmod` or `chown` makes a rescan.
public struct ScanCacheKey: Sendable, Hashable {
    /// The path the library was found at.
    public let path: String
    /// The device of the file.
    public let device: UInt64
    /// The inode of the file.
    public let inode: UInt64
    /// The size in bytes.
    public let size: Int
    /// The modification time, since the epoch, to the nanosecond.
    public let modified: Duration
    /// The change time of the file or its inode (`st_ctim`), since the epoch, to the nanosecond.
    public let changed: Duration
    /// The ABI of the host that scanned it.
    public let hostABI: ABIVersion
}

extension ScanCacheKey {
    /// The key of the library file at `path` as it is now; throws the scan failure
    /// when it cannot be read or is not a regular file.
    public init(path: String) throws(LoadFailure) {
        self.init(path: path, status: try FileStatus.ofLibrary(path))
    }

    init(path: String, status: FileStatus) {
        self.path = path
        device = status.identity.device
        inode = status.identity.inode
        size = status.size
        modified = status.modified
        changed = status.changed
        hostABI = .host
    }
}
