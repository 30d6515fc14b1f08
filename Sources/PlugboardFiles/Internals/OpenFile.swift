import Glibc
import PlugboardSystem
import SystemPackage

/// An open file, closed when the object goes away; the raw descriptor never
/// leaves this type.
final class OpenFile {
    private let descriptor: CInt
    private static let chunkSize = 256 * 1024

    init(descriptor: CInt) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The path that names the open file through `/proc`, for `linkat` of a file that has no name yet.
    var procPath: String { "/proc/self/fd/\(descriptor)" }

    /// `fstat` of the open file (a symbolic link itself, for an `O_PATH` descriptor).
    func status() throws(Errno) -> stat {
        var status = stat()
        try systemCall { fstat(descriptor, &status) }
        return status
    }

    /// The birth time, where the kernel and file system record one.
    func birthTime() -> timespec? {
        LinuxSystemCalls.birthTime(ofDescriptor: descriptor)
    }

    /// Reads up to `count` bytes; an empty result means end of file.
    func read(upTo count: Int) throws(Errno) -> [UInt8] {
        var bytes: [UInt8] = []
        try systemCall {
            var result = 0
            bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initializedCount in
                result = Glibc.read(descriptor, buffer.baseAddress, count)
                initializedCount = max(result, 0)
            }
            return result
        }
        return bytes
    }

    /// Reads from the current offset to the end, handing `body` each chunk read (at most 256 KiB),
    /// in order; stops early when `body` returns false.
    func readChunks(_ body: ([UInt8]) -> Bool) throws(Errno) {
        while true {
            let chunk = try read(upTo: Self.chunkSize)
            guard !chunk.isEmpty, body(chunk) else { return }
        }
    }

    /// Writes all of `bytes`, continuing after short writes.
    func writeAll(_ bytes: [UInt8]) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            offset += try systemCall {
                bytes.withUnsafeBytes { buffer in
                    let remaining = UnsafeRawBufferPointer(rebasing: buffer[offset...])
                    return write(descriptor, remaining.baseAddress, remaining.count)
                }
            }
        }
    }

    /// Copies everything from `source`'s current offset to the end into this file.
    func copyContents(of source: OpenFile) throws(Errno) {
        while true {
            let chunk = try source.read(upTo: Self.chunkSize)
            if chunk.isEmpty { return }
            try writeAll(chunk)
        }
    }

    /// Flushes the file's data and metadata to storage.
    func synchronize() throws(Errno) {
        try systemCall { fsync(descriptor) }
    }

    /// Sets the file's permission bits.
    func setPermissions(_ mode: mode_t) throws(Errno) {
        try systemCall { fchmod(descriptor, mode) }
    }
}
