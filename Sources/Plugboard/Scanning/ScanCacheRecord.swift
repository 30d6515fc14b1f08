import PlugboardWorkerProtocol

/// One library file the scan cache remembers: the key it is valid for, when it was stored, and
/// what is remembered, kept encoded as the cache file holds it. A listing decodes the entries it
/// shows; a host loading libraries asks only their kind, so opening the cache decodes no report.
struct ScanCacheRecord {
    /// What is remembered of the file.
    enum Kind: UInt8 {
        /// It passed the ELF checks and loaded in a host; nothing else is kept.
        case checked = 0
        /// A scan's report (``ScanCacheEntry/scanned(report:)``): it passed the checks and loaded.
        case scanned = 1
        /// A crash, hang or exit while it was scanned (``ScanCacheEntry/crashed(reason:)``).
        case crashed = 2
    }

    /// The file the record is valid for.
    let key: ScanCacheKey
    /// When the record was stored, since the epoch (see ``ScanCache/racyWindow``).
    let storedAt: Duration
    /// What is remembered.
    let kind: Kind
    /// The bytes that hold the entry's body at `body`: for records read from a file, the whole
    /// file's, shared by all of them.
    private let bytes: [UInt8]
    private let body: Range<Int>

    /// A record of `entry` for the file `key` describes, stored at `storedAt` (now by default); a nil
    /// `entry` records that the file passed the ELF checks and loaded.
    init(key: ScanCacheKey, entry: ScanCacheEntry?, storedAt: Duration = .sinceEpoch) {
        self.key = key
        self.storedAt = storedAt
        switch entry {
        case nil: kind = .checked
        case .scanned?: kind = .scanned
        case .crashed?: kind = .crashed
        }
        bytes = entry.map(ScanCacheRecordCoding.body(of:)) ?? []
        body = bytes.indices
    }

    private init(key: ScanCacheKey, storedAt: Duration, kind: Kind, bytes: [UInt8], body: Range<Int>) {
        self.key = key
        self.storedAt = storedAt
        self.kind = kind
        self.bytes = bytes
        self.body = body
    }

    /// The same record stored now: for a file whose bytes were just checked, so that from now on it
    /// may vouch for them (``vouchesForContents(of:)``).
    func storedAgain() -> ScanCacheRecord {
        ScanCacheRecord(key: key, storedAt: .sinceEpoch, kind: kind, bytes: bytes, body: body)
    }

    /// Whether the record is valid for the file `key` describes: the same key, and stored at least
    /// ``ScanCache/racyWindow`` after the file's modification time.
    func isValid(for key: ScanCacheKey) -> Bool {
        self.key == key && storedAt - key.modified >= ScanCache.racyWindow
    }

    /// Whether the record may stand for the file's bytes, so that they need not be checked again:
    /// valid, and stored at least ``ScanCache/racyWindow`` after the file's change time too. No one
    /// can set that time back, so no rewrite, however its modification time was restored, can keep
    /// the key of bytes checked within one tick of the clock before it.
    func vouchesForContents(of key: ScanCacheKey) -> Bool {
        isValid(for: key) && storedAt - key.changed >= ScanCache.racyWindow
    }

    /// The remembered entry, decoded now; nil for a file that only passed the checks, and for a
    /// body that does not read back (a damaged file: the library is then scanned again).
    var entry: ScanCacheEntry? {
        var decoder = WireDecoder(bytes, range: body)
        return try? ScanCacheRecordCoding.readEntry(kind, from: &decoder)
    }

    /// Writes the record as the cache file holds it: the key, when it was stored, the kind and the
    /// body (`u32`-length-prefixed, so a reader can pass over it). Everything between the path and the
    /// body has a fixed size, ``bytesBetweenPathAndBody``.
    func write(to encoder: inout WireEncoder) {
        ScanCacheRecordCoding.write(key, to: &encoder)
        ScanCacheRecordCoding.write(storedAt, to: &encoder)
        encoder.append(kind.rawValue)
        encoder.append(bytes: bytes[body])
    }

    /// The bytes ``write(to:)`` writes between the key's path and the body: the device, inode and size
    /// (8 each), the modification and change times (16 each), the host ABI (8), when it was stored (16)
    /// and the kind (1).
    static let bytesBetweenPathAndBody = 8 + 8 + 8 + 16 + 16 + 8 + 16 + 1

    /// Reads what ``write(to:)`` wrote, from `decoder` over `bytes`, keeping the body where it is; the
    /// caller found the record at `path`.
    static func read(at path: String, from decoder: inout WireDecoder, in bytes: [UInt8]) throws(WorkerProtocolError) -> ScanCacheRecord {
        _ = try decoder.readLengthPrefixedRange("key.path")
        let key = try ScanCacheRecordCoding.readKey(path: path, from: &decoder)
        let storedAt = try ScanCacheRecordCoding.readDuration("storedAt", from: &decoder)
        let raw = try decoder.readUInt8("kind")
        guard let kind = Kind(rawValue: raw) else { throw .malformed(field: "kind", cause: .unknownKind(raw)) }
        return ScanCacheRecord(key: key, storedAt: storedAt, kind: kind, bytes: bytes, body: try decoder.readLengthPrefixedRange("body"))
    }
}
