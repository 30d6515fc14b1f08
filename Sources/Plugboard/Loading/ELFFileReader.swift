import Glibc
import PlugboardSystem
import SystemPackage

/// Bounds-checked reads of an open ELF file: every range is checked against
/// the file's size before one `pread`, so offsets a hostile file declares
/// can never reach past its end.
struct ELFFileReader {
    let descriptor: Int32
    let size: UInt64

    /// Opens the file at `path` for reading (close-on-exec); the caller closes the descriptor.
    static func openFile(_ path: String) throws(LoadFailure) -> Int32 {
        do {
            return try systemCall { open(path, O_RDONLY | O_CLOEXEC) }
        } catch {
            throw LoadFailure(.open, "cannot read the file", systemError: error.description)
        }
    }

    /// `count` bytes at `offset`; `what` names the part for the error message.
    func bytes(at offset: UInt64, count: UInt64, _ what: String) throws(LoadFailure) -> [UInt8] {
        let (end, overflow) = offset.addingReportingOverflow(count)
        guard !overflow, end <= size else {
            throw LoadFailure(.open, "malformed ELF file: \(what) reaches byte \(overflow ? "beyond 2^64" : String(end)), but the file has \(size) bytes")
        }
        var buffer = [UInt8](repeating: 0, count: Int(count))
        var done = 0
        while done < buffer.count {
            let got: Int
            do throws(Errno) {
                got = try pread(into: &buffer, from: done, offset: offset)
            } catch {
                throw LoadFailure(.open, "cannot read \(what)", systemError: error.description)
            }
            guard got > 0 else { throw LoadFailure(.open, "truncated ELF file: \(what) ends early (the file shrank while read)") }
            done += got
        }
        return buffer
    }

    /// One `pread` of the file's bytes from `offset + start` into `buffer[start...]`.
    private func pread(into buffer: inout [UInt8], from start: Int, offset: UInt64) throws(Errno) -> Int {
        try systemCall {
            buffer.withUnsafeMutableBytes { raw in
                Glibc.pread(descriptor, raw.baseAddress.map { $0 + start }, raw.count - start, off_t(offset) + off_t(start))
            }
        }
    }
}

extension [UInt8] {
    /// The little-endian integer at `offset`; the caller has checked the bounds.
    func littleEndian<Value: FixedWidthInteger>(_: Value.Type, at offset: Int) -> Value {
        (0..<MemoryLayout<Value>.size).reversed().reduce(Value(0)) { $0 << 8 | Value(self[offset + $1]) }
    }
}

extension ELFFileReader {
    /// Runs `body` on the file at `path`, read through one descriptor that is closed afterwards.
    static func reading<Result>(_ path: String, _ body: (ELFFileReader) throws(LoadFailure) -> Result) throws(LoadFailure) -> Result {
        let descriptor = try openFile(path)
        defer { close(descriptor) }
        var status = stat()
        do {
            try systemCall { fstat(descriptor, &status) }
        } catch {
            throw LoadFailure(.open, "cannot read the file's size", systemError: error.description)
        }
        return try body(ELFFileReader(descriptor: descriptor, size: UInt64(max(status.st_size, 0))))
    }

    /// The file's dynamic symbols, read after its 64-byte header; nil for a file shorter than the
    /// header or without a dynamic section.
    func dynamicSymbols() throws(LoadFailure) -> ELFDynamicSymbols? {
        let header = try bytes(at: 0, count: min(64, size), "the ELF header")
        guard header.count == 64 else { return nil }
        return try ELFDynamicSymbols(file: self, header: header)
    }
}
