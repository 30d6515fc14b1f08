import Foundation
import Glibc
import PlugboardSystem
import SystemPackage

/// The scan cache file: its format, and reading and writing it whole.
///
/// The format is JSON through Codable: the report types are Codable already (`--json`
/// prints them), a person can read the file when a plugin's entry is in doubt, and
/// Foundation's decoder reads the 1,000 entries of a large plugin tree in a few
/// milliseconds, far less than one `dlopen`; a binary format would be faster still but
/// would duplicate every report type's layout. The file names its format, version and
/// host ABI, so a file from another program or another Plugboard is recognised as foreign.
///
/// Writers never corrupt it: each writes a temporary file beside it, flushes it with
/// `fsync` and renames it over the old one, so a reader sees one whole file or the
/// other, and of two hosts saving at once the last rename wins.
enum ScanCacheFile {
    /// One cached library.
    struct Record: Codable {
        let key: ScanCacheKey
        let entry: ScanCacheEntry
    }

    /// Why a file cannot be used, or saved: a sentence.
    struct Problem: Error {
        let message: String
    }

    /// The records of the cache file at `location`: none when it does not exist, none and
    /// the problem when it is unreadable, corrupt, truncated, too large or foreign.
    static func read(_ location: ScanCacheLocation) -> Result<[Record], Problem> {
        let bytes: [UInt8]
        do throws(Errno) {
            guard let contents = try contents(of: location.file) else { return .success([]) }
            bytes = contents
        } catch {
            return .failure(Problem(message: "cannot be read (\(error))"))
        }
        do {
            return .success(try JSONDecoder().decode(Document.self, from: Data(bytes)).records)
        } catch let foreign as Problem {
            return .failure(foreign)
        } catch {
            return .failure(Problem(message: "is corrupt or truncated"))
        }
    }

    /// Replaces the cache file at `location` with `records`, creating its directory
    /// (mode 0700) when missing; the problem names the step that failed and the cause.
    static func write(_ records: [Record], to location: ScanCacheLocation) throws(Problem) {
        let bytes: Data
        do {
            bytes = try JSONEncoder().encode(Document(records: records))
        } catch {
            throw Problem(message: "cannot be encoded (\(error))")
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
    }

    /// The largest cache file read; a larger one is treated as foreign (1,000 libraries take about 1 MiB).
    static let sizeLimit = 256 << 20

    /// The bytes of the file at `path`, or nil when it or its directory does not exist.
    private static func contents(of path: String) throws(Errno) -> [UInt8]? {
        let descriptor: Int32
        do {
            descriptor = try systemCall { open(path, O_RDONLY | O_CLOEXEC) }
        } catch .noSuchFileOrDirectory, .notDirectory {
            return nil
        }
        defer { close(descriptor) }
        var info = stat()
        try systemCall { fstat(descriptor, &info) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .invalidArgument }
        guard info.st_size <= sizeLimit else { throw .fileTooLarge }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in try systemCall { Glibc.read(descriptor, buffer.baseAddress, buffer.count) } }
            }.get()
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            guard bytes.count <= sizeLimit else { throw .fileTooLarge }
        }
    }

    private static func writeAll(_ bytes: Data, to descriptor: Int32) throws(Errno) {
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

    /// The file's top level: format name, version and host ABI, then the records.
    private struct Document: Codable {
        static let format = "plugboard-scan-cache"
        static let version = 1

        let records: [Record]

        private enum CodingKeys: String, CodingKey { case format, version, hostABI, records }

        init(records: [Record]) {
            self.records = records
        }

        /// Reads the header first, so a foreign file is named as such.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard (try? container.decode(String.self, forKey: .format)) == Self.format else {
                throw Problem(message: "is not a Plugboard scan cache")
            }
            let version = try? container.decode(Int.self, forKey: .version)
            guard version == Self.version else {
                throw Problem(message: "has format version \(version.map(String.init) ?? "(none)"), this host reads \(Self.version)")
            }
            let hostABI = try? container.decode(ABIVersion.self, forKey: .hostABI)
            guard hostABI == .host else {
                throw Problem(message: "was written by a host of ABI \(hostABI.map(\.description) ?? "(none)"), this host is \(ABIVersion.host)")
            }
            records = try container.decode([Record].self, forKey: .records)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(Self.format, forKey: .format)
            try container.encode(Self.version, forKey: .version)
            try container.encode(ABIVersion.host, forKey: .hostABI)
            try container.encode(records, forKey: .records)
        }
    }
}
