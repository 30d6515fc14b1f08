import Glibc
import PlugboardSystem
import PlugboardWorkerProtocol
import SystemPackage

/// The scan cache file: its format, and reading and writing it whole.
///
/// The format is binary (``ScanCacheRecordCoding``, in the worker protocol's primitives):
/// the goal is a listing of 1,000 unchanged libraries in under 10 ms of the host's own
/// work, and on a loaded 2-core machine Foundation's JSON decoder took about 45 ms to
/// read those 1,000 records back into reports, this layout about 5 ms. Each record's entry
/// is length-prefixed and read only when asked for (``ScanCacheRecord``): a host that loads
/// libraries asks only what kind of record a file has, and opening the cache then decodes
/// keys, not reports. The file starts with a magic, a format version and the host ABI, so a
/// file from another program or another Plugboard is recognised as foreign; a record whose
/// path or length does not read back makes the file corrupt, and one whose other fields or
/// entry do not read back is as good as absent.
///
/// Writers never corrupt it: each writes a temporary file beside it, flushes it with
/// `fsync` and renames it over the old one, so a reader sees one whole file or the
/// other, and of two hosts saving at once the last rename wins.
enum ScanCacheFile {
    /// Why a file cannot be used, or saved: a sentence.
    struct Problem: Error {
        let message: String
    }

    /// The first bytes of every scan cache file.
    static let magic = Array("PBSCACHE".utf8)
    /// The layout version this host reads and writes.
    /// 3: each file's change time in its key; records of files that only passed the checks; each
    /// entry's body length-prefixed, read when asked for.
    static let version: UInt32 = 3

    /// The records of the cache file at `location`: none when it does not exist, none and
    /// the problem when it is unreadable, corrupt, truncated, too large or foreign, or when
    /// another user may have written it: a record of a file that passed the ELF checks lets a
    /// host load it without them, so only this user's (or root's) own file is believed.
    static func read(_ location: ScanCacheLocation) -> Result<ScanCacheIndex, Problem> {
        let contents: (bytes: [UInt8], owner: uid_t, mode: mode_t)
        do throws(Errno) {
            guard let read = try self.contents(of: location.file) else { return .success(ScanCacheIndex()) }
            contents = read
        } catch {
            return .failure(Problem(message: "cannot be read (\(error))"))
        }
        guard contents.owner == geteuid() || contents.owner == 0 else {
            return .failure(Problem(message: "belongs to user \(contents.owner), not to this user or root"))
        }
        guard contents.mode & 0o022 == 0 else {
            return .failure(Problem(message: "may be written by other users (mode 0\(String(contents.mode & 0o7777, radix: 8)))"))
        }
        return index(contents.bytes)
    }

    /// The records of `bytes`, a cache file's, or why they cannot be used.
    private static func index(_ bytes: [UInt8]) -> Result<ScanCacheIndex, Problem> {
        guard bytes.starts(with: magic) else { return .failure(Problem(message: "is not a Plugboard scan cache")) }
        var decoder = WireDecoder(bytes, range: magic.count..<bytes.count)
        do throws(WorkerProtocolError) {
            let version = try decoder.readUInt32("version")
            guard version == Self.version else {
                return .failure(Problem(message: "has format version \(version), this host reads \(Self.version)"))
            }
            let hostABI = try ScanCacheRecordCoding.readABIVersion(from: &decoder)
            guard hostABI == .host else {
                return .failure(Problem(message: "was written by a host of ABI \(hostABI), this host is \(ABIVersion.host)"))
            }
            let index = try ScanCacheIndex(bytes, count: try decoder.readUInt32("records"), from: &decoder)
            try decoder.requireEnd(of: "the cache file")
            return .success(index)
        } catch .malformed(let field, _) {
            return .failure(Problem(message: "is corrupt or truncated (at \(field))"))
        } catch {
            return .failure(Problem(message: "is corrupt or truncated (\(error))"))
        }
    }

    /// Replaces the cache file at `location` with `records` (in byte order of their paths, each
    /// path once), creating its directory (mode 0700) when missing, and returns what it wrote; the
    /// problem names the step that failed and the cause.
    static func write(_ records: [ScanCacheRecord], to location: ScanCacheLocation) throws(Problem) -> ScanCacheIndex {
        var encoder = WireEncoder(capacity: 512 * records.count + 64)
        for byte in magic { encoder.append(byte) }
        encoder.append(version)
        ScanCacheRecordCoding.write(ABIVersion.host, to: &encoder)
        encoder.append(UInt32(records.count))
        for record in records { record.write(to: &encoder) }
        let bytes = encoder.bytes
        guard case .success(let written) = index(bytes) else {
            throw Problem(message: "cannot write records out of order or twice")
        }
        try step("cannot create the directory \(location.directory)") { () throws(Errno) in
            try makeDirectories(location.directory)
        }
        let temporary = location.directory + "/.\(ScanCacheLocation.fileName).\(getpid()).\(UInt64.random(in: .min ... .max))"
        do throws(Problem) {
            try step("cannot write the temporary file \(temporary)") { () throws(Errno) in
                let descriptor = try systemCall { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
                defer { close(descriptor) }
                try writeAll(bytes, to: descriptor)
                try systemCall { fsync(descriptor) }
            }
            try step("cannot rename \(temporary) to \(location.file)") { () throws(Errno) in
                try systemCall { rename(temporary, location.file) }
            }
        } catch {
            unlink(temporary)
            throw error
        }
        return written
    }

    /// The largest cache file read; a larger one is ignored (1,000 libraries take about 300 KiB).
    static let sizeLimit = 256 << 20

    /// The bytes of the file at `path`, its owner and its mode, or nil when it or its directory
    /// does not exist. Opened without blocking, so a FIFO put in its place cannot stall the command.
    private static func contents(of path: String) throws(Errno) -> (bytes: [UInt8], owner: uid_t, mode: mode_t)? {
        let descriptor: Int32
        do {
            descriptor = try systemCall { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        } catch .noSuchFileOrDirectory, .notDirectory {
            return nil
        }
        defer { close(descriptor) }
        var info = stat()
        try systemCall { fstat(descriptor, &info) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw (info.st_mode & S_IFMT) == S_IFDIR ? .isDirectory : .invalidArgument }
        guard info.st_size <= sizeLimit else { throw .fileTooLarge }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in try systemCall { Glibc.read(descriptor, buffer.baseAddress, buffer.count) } }
            }.get()
            if count == 0 { return (bytes, info.st_uid, info.st_mode) }
            bytes += chunk[..<count]
            guard bytes.count <= sizeLimit else { throw .fileTooLarge }
        }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws(Errno) {
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            Result { () throws(Errno) in
                var offset = 0
                while offset < buffer.count {
                    offset += try systemCall { Glibc.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset) }
                }
            }
        }.get()
    }

    /// `mkdir -p` with mode 0700 for each directory it creates.
    private static func makeDirectories(_ path: String) throws(Errno) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            do {
                try systemCall { mkdir(prefix, 0o700) }
            } catch .fileExists {
                continue
            }
        }
    }

    /// Runs `body`, turning its `Errno` into a problem that starts with `what`.
    private static func step(_ what: String, _ body: () throws(Errno) -> Void) throws(Problem) {
        do {
            try body()
        } catch {
            throw Problem(message: "\(what) (\(error))")
        }
    }
}
