/// The scan cache, in the manner of GStreamer's registry: one file that remembers, for
/// each library file, what scanning it found (its plugins and concerns, or the crash it
/// caused), or that it passed the ELF checks and loaded in a host, valid while the file's
/// ``ScanCacheKey`` is unchanged. A listing of unchanged files answers from it without
/// loading anything; a host loading an unchanged file that passed the checks before does
/// not open it to check it again.
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

    /// The cache file's records as they were read, or last written.
    private var file = ScanCacheIndex()
    /// What was stored (a record) or forgotten (nil) since, by path: what ``save()`` writes over the
    /// file's newer contents.
    private var changes: [PathBytes: ScanCacheRecord?] = [:]
    private var isChanged = false

    /// The cache stored at `location` (empty if there is no file yet); nil keeps it in memory only.
    public init(location: ScanCacheLocation?) {
        self.location = location
        guard let location else { return }
        switch ScanCacheFile.read(location) {
        case .success(let index):
            file = index
        case .failure(let problem):
            notes.append("the scan cache \(location.file) \(problem.message): ignored, and rewritten")
            isChanged = true
        }
    }

    /// The paths of the libraries the cache remembers something of, in byte order.
    public var paths: [String] { records(over: file).map(\.key.path) }

    /// How long after its last modification a file must have been scanned for the entry to
    /// be trusted: 2 s. A file changed again within the same tick of the file system's clock
    /// (coarse: milliseconds, 2 s on FAT) keeps its modification time, and in place and at the
    /// same size it keeps its whole key; such a "racily clean" entry (git's term) is not used,
    /// so the file is scanned again, and the new entry, stored later, is.
    public static let racyWindow: Duration = .seconds(2)

    /// What the cache remembers of the library `key` describes; nil when nothing but that it
    /// passed the checks, when the file changed since (another device, inode, size, modification
    /// or change time, or host ABI), or when it had changed less than ``racyWindow`` before the
    /// entry was stored.
    public func entry(for key: ScanCacheKey) -> ScanCacheEntry? {
        record(at: key.path).flatMap { $0.isValid(for: key) ? $0.entry : nil }
    }

    /// What kind of record the cache keeps for the library `key` describes, with the same
    /// conditions as ``entry(for:)``; nothing is decoded.
    func kind(for key: ScanCacheKey) -> ScanCacheRecord.Kind? {
        record(at: key.path).flatMap { $0.isValid(for: key) ? $0.kind : nil }
    }

    /// The record kept for `path`, valid or not (``ScanCacheRecord/isValid(for:)``).
    func record(at path: String) -> ScanCacheRecord? {
        if !changes.isEmpty, let changed = changes[PathBytes(path)] { return changed }
        return file.record(at: path)
    }

    /// Remembers `entry` for the library `key` describes, replacing what was remembered
    /// for its path. A failed scan (``ScanCacheEntry/scanned(report:)`` of a failed report) is not
    /// remembered, and forgets the path, unless a host remembered it as having passed the ELF checks
    /// (a scan can fail for a cause outside the file, such as the scanner's sandbox).
    public mutating func store(_ entry: ScanCacheEntry, for key: ScanCacheKey) {
        guard entry.isRemembered else {
            if record(at: key.path)?.kind != .checked { forget(key.path) }
            return
        }
        put(ScanCacheRecord(key: key, entry: entry))
    }

    /// Remembers that the library `key` describes passed the ELF checks and loaded. A listing's report
    /// of it that is valid is kept, stored anew: a report stored soon after the file's change time
    /// (an install that kept the modification time, a `chmod`), which could not vouch for the bytes,
    /// may now. Anything else remembered for its path is replaced.
    mutating func notePassedChecks(_ key: ScanCacheKey) {
        if let listed = record(at: key.path), listed.kind == .scanned, listed.isValid(for: key) {
            put(listed.storedAgain())
        } else {
            put(ScanCacheRecord(key: key, entry: nil))
        }
    }

    /// Keeps `record` for its path, to be written by ``save()``.
    private mutating func put(_ record: ScanCacheRecord) {
        changes[PathBytes(record.key.path)] = record
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
        guard record(at: path) != nil else { return }
        changes[PathBytes(path)] = .some(nil)
        isChanged = true
    }

    /// Writes the cache file if anything changed since it was read. A failure is not
    /// thrown: the cache only saves work, so it becomes a note naming the step and the cause.
    public mutating func save() {
        guard isChanged, let location else { return }
        let current = if case .success(let current) = ScanCacheFile.read(location) { current } else { file }
        do throws(ScanCacheFile.Problem) {
            file = try ScanCacheFile.write(records(over: current), to: location)
            changes = [:]
            isChanged = false
        } catch {
            notes.append("the scan cache \(location.file) was not saved: \(error.message)")
        }
    }

    /// The records of `base` whose paths did not change, with those stored since, in byte order of their paths.
    private func records(over base: ScanCacheIndex) -> [ScanCacheRecord] {
        var records = base.records.filter { changes.index(forKey: PathBytes($0.key.path)) == nil }
        records += changes.values.compactMap { $0 }
        records.sort { $0.key.path.precedesInByteOrder($1.key.path) }
        return records
    }
}

/// A path compared and hashed by its bytes, as the file system names files and the cache file finds
/// them: two names that differ only in Unicode normalization are two files, where `String` would take
/// them for one.
private struct PathBytes: Hashable {
    let path: String

    init(_ path: String) { self.path = path }

    static func == (lhs: PathBytes, rhs: PathBytes) -> Bool { lhs.path.utf8.elementsEqual(rhs.path.utf8) }

    func hash(into hasher: inout Hasher) {
        var path = path
        path.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
