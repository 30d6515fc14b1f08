import Glibc

/// The scan cache, in the manner of GStreamer's registry: one file that remembers, for
/// each library file, what scanning it found (its plugins and concerns, or the crash it
/// caused), valid while the file's ``ScanCacheKey`` is unchanged. A listing of unchanged
/// files answers from it without loading anything.
///
/// The file is read when the cache is opened and written whole by ``save()``, which
/// first reads it again and keeps what other processes stored meanwhile for the paths
/// this one did not touch (so `plugboard` commands running side by side do not drop
/// each other's entries; the read-merge-rename window that remains is microseconds
/// wide, and the cost of losing it is a rescan). A file that is unreadable, corrupt,
/// truncated or foreign is ignored (``notes`` says so) and rewritten by the next save.
/// A value, used from one thread at a time.
public struct ScanCache: Sendable {
    /// Where the cache file is; nil for a cache that lives in memory only.
    public let location: ScanCacheLocation?
    /// What the operator should know: a cache file that was ignored, or could not be saved.
    public private(set) var notes: [String] = []

    private var records: [String: ScanCacheFile.Record] = [:]
    /// The paths stored or forgotten since the file was read: what ``save()`` writes over the file's newer contents.
    private var changedPaths: Set<String> = []
    private var isChanged = false

    /// The cache stored at `location` (empty if there is no file yet); nil keeps it in memory only.
    public init(location: ScanCacheLocation?) {
        self.location = location
        guard let location else { return }
        switch ScanCacheFile.read(location) {
        case .success(let records):
            for record in records { self.records[record.key.path] = record }
        case .failure(let problem):
            notes.append("the scan cache \(location.file) \(problem.message): ignored, and rewritten")
            isChanged = true
        }
    }

    /// The paths of the libraries the cache remembers something of.
    public var paths: [String] { records.keys.sorted() }

    /// How long after its last modification a file must have been scanned for the entry to
    /// be trusted: 2 s. A file changed again within the same tick of the file system's clock
    /// (coarse: milliseconds, 2 s on FAT) keeps its modification time, and in place and at the
    /// same size it keeps its whole key; such a "racily clean" entry (git's term) is not used,
    /// so the file is scanned again, and the new entry, stored later, is.
    public static let racyWindow: Duration = .seconds(2)

    /// What the cache remembers of the library `key` describes; nil when nothing, when the
    /// file changed since (another device, inode, size, modification time or host ABI), or
    /// when it had changed less than ``racyWindow`` before the entry was stored.
    public func entry(for key: ScanCacheKey) -> ScanCacheEntry? {
        guard let record = records[key.path], record.key == key,
              record.storedAt - key.modified >= Self.racyWindow else { return nil }
        return record.entry
    }

    /// Remembers `entry` for the library `key` describes, replacing what was remembered
    /// for its path. A failed scan (``ScanCacheEntry/scanned(report:)`` of a failed report) is not
    /// remembered, and forgets the path.
    public mutating func store(_ entry: ScanCacheEntry, for key: ScanCacheKey) {
        guard entry.isRemembered else {
            forget(key.path)
            return
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        records[key.path] = ScanCacheFile.Record(key: key, entry: entry, storedAt: .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec))
        changedPaths.insert(key.path)
        isChanged = true
    }

    /// Remembers that the library `key` describes crashed, hung or exited while being
    /// scanned, for the reason given (naming the stage): listings show it as failed
    /// with that reason until the file changes.
    public mutating func recordCrash(_ reason: LoadFailure, for key: ScanCacheKey) {
        store(.crashed(reason: reason), for: key)
    }

    /// Forgets what the cache remembers for `path`.
    public mutating func forget(_ path: String) {
        guard records.removeValue(forKey: path) != nil else { return }
        changedPaths.insert(path)
        isChanged = true
    }

    /// Writes the cache file if anything changed since it was read. A failure is not
    /// thrown: the cache only saves work, so it becomes a note naming the step and the cause.
    public mutating func save() {
        guard isChanged, let location else { return }
        if case .success(let current) = ScanCacheFile.read(location) {
            var merged = records.filter { changedPaths.contains($0.key) }
            for record in current where !changedPaths.contains(record.key.path) { merged[record.key.path] = record }
            records = merged
        }
        do throws(ScanCacheFile.Problem) {
            try ScanCacheFile.write(paths.compactMap { records[$0] }, to: location)
            changedPaths = []
            isChanged = false
        } catch {
            notes.append("the scan cache \(location.file) was not saved: \(error.message)")
        }
    }
}
