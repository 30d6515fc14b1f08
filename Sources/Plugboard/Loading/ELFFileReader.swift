import Glibc
import PlugboardSystem
import SystemPackage

/// Bounds-checked reads of an open ELF file: every range is checked against
/// the file's size before it is read, so offsets a hostile file declares
/// can never reach past its end.
///
/// Reads are served from four cached 1 KiB blocks of the file, each read with one `pread` when
/// first needed: a small plugin's header, program headers, hash table, symbols and names share the
/// first block and its dynamic section one more, so its preflight makes two `pread`s of 1 KiB and no
/// allocation per field; small blocks keep the bytes copied to what is read. `pread`, not `mmap`: a
/// file truncated while mapped would raise SIGBUS in the host; a short `pread` is an error.
final class ELFFileReader {
    let descriptor: Int32
    let size: UInt64

    private static let blockSize = 1024
    private static let blockCount = 4
    /// `blockCount` blocks of `blockSize` bytes.
    private let blocks: UnsafeMutableRawPointer
    /// Which block of the file each slot holds (`UInt64.max`: none yet).
    private var cached: [4 of UInt64] = .init(repeating: .max)
    /// The slot the next block read replaces.
    private var nextSlot = 0

    /// A reader of the file open as `descriptor`, `size` bytes long; the caller closes the descriptor
    /// after the reader's last use.
    init(descriptor: Int32, size: UInt64) {
        self.descriptor = descriptor
        self.size = size
        blocks = .allocate(byteCount: Self.blockSize * Self.blockCount, alignment: 16)
    }

    deinit { blocks.deallocate() }

    /// Opens the file at `path` for reading (close-on-exec); the caller closes the descriptor.
    /// Without blocking: a FIFO or a device put where a library was expected must not hold the
    /// caller until another process opens its other end (a regular file ignores the flag); never as
    /// a controlling terminal; and, unless `followingLinks`, refused when `path` names a link.
    static func openFile(_ path: String, followingLinks: Bool = true) throws(LoadFailure) -> Int32 {
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (followingLinks ? 0 : O_NOFOLLOW)
        do {
            return try systemCall { path.withCString { open($0, flags) } }
        } catch {
            throw LoadFailure(.open, "cannot read the file", systemError: error.description)
        }
    }

    /// `body` with the `count` bytes at `offset`, valid during `body` only; `what` names the part
    /// for the error message.
    func withBytes<Result>(at offset: UInt64, count: Int, _ what: String,
                           _ body: (UnsafeRawBufferPointer) throws(LoadFailure) -> Result) throws(LoadFailure) -> Result {
        try requireRange(at: offset, count: UInt64(count), what)
        let block = offset / UInt64(Self.blockSize)
        let start = Int(offset % UInt64(Self.blockSize))
        guard start + count <= Self.blockSize else {
            // Across a block boundary or longer than a block: read on its own.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
            defer { buffer.deallocate() }
            try read(into: buffer, at: offset, what)
            return try body(UnsafeRawBufferPointer(buffer))
        }
        let slot = try slot(holding: block, what)
        return try body(UnsafeRawBufferPointer(start: blocks + slot * Self.blockSize + start, count: count))
    }

    /// The little-endian integer at `offset`.
    func load<Value: FixedWidthInteger>(_: Value.Type, at offset: UInt64, _ what: String) throws(LoadFailure) -> Value {
        try withBytes(at: offset, count: MemoryLayout<Value>.size, what) { $0.littleEndian(Value.self, at: 0) }
    }

    /// `count` bytes at `offset`, as an array.
    func bytes(at offset: UInt64, count: UInt64, _ what: String) throws(LoadFailure) -> [UInt8] {
        try requireRange(at: offset, count: count, what)
        return try withBytes(at: offset, count: Int(count), what) { Array($0) }
    }

    /// Throws unless `count` bytes at `offset` lie within the file (reads nothing).
    func requireRange(at offset: UInt64, count: UInt64, _ what: String) throws(LoadFailure) {
        let (end, overflow) = offset.addingReportingOverflow(count)
        guard !overflow, end <= size, count <= UInt64(Int.max) else {
            throw LoadFailure(.open, "malformed ELF file: \(what) reaches byte \(overflow ? "beyond 2^64" : String(end)), but the file has \(size) bytes")
        }
    }

    /// The slot that holds `block`, read into the next slot when none does.
    private func slot(holding block: UInt64, _ what: String) throws(LoadFailure) -> Int {
        for slot in 0..<Self.blockCount where cached[slot] == block { return slot }
        let slot = nextSlot
        nextSlot = (nextSlot + 1) % Self.blockCount
        cached[slot] = .max
        let start = block * UInt64(Self.blockSize)
        let length = Int(min(UInt64(Self.blockSize), size - start))
        try read(into: UnsafeMutableRawBufferPointer(start: blocks + slot * Self.blockSize, count: length), at: start, what)
        cached[slot] = block
        return slot
    }

    /// Fills `buffer` from the file at `offset`, with as many `pread`s as it takes.
    private func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64, _ what: String) throws(LoadFailure) {
        var done = 0
        while done < buffer.count {
            let got: Int
            do throws(Errno) {
                got = try systemCall {
                    Glibc.pread(descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset) + off_t(done))
                }
            } catch {
                throw LoadFailure(.open, "cannot read \(what)", systemError: error.description)
            }
            guard got > 0 else { throw LoadFailure(.open, "truncated ELF file: \(what) ends early (the file shrank while read)") }
            done += got
        }
    }
}

extension [UInt8] {
    /// The little-endian integer at `offset`; the caller has checked the bounds.
    func littleEndian<Value: FixedWidthInteger>(_: Value.Type, at offset: Int) -> Value {
        (0..<MemoryLayout<Value>.size).reversed().reduce(Value(0)) { $0 << 8 | Value(self[offset + $1]) }
    }
}

extension UnsafeRawBufferPointer {
    /// The little-endian integer at `offset`; the caller has checked that it lies in the buffer.
    func littleEndian<Value: FixedWidthInteger>(_: Value.Type, at offset: Int) -> Value {
        Value(littleEndian: loadUnaligned(fromByteOffset: offset, as: Value.self))
    }
}

extension ELFFileReader {
    /// Runs `body` on the file at `path`, read through one descriptor that is closed afterwards;
    /// throws for anything but a regular file (a FIFO, a device, a directory), saying which.
    static func reading<Result>(_ path: String, _ body: (ELFFileReader) throws(LoadFailure) -> Result) throws(LoadFailure) -> Result {
        let descriptor = try openFile(path)
        defer { close(descriptor) }
        var status = stat()
        do {
            try systemCall { fstat(descriptor, &status) }
        } catch {
            throw LoadFailure(.open, "cannot read the file's size", systemError: error.description)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw LoadFailure(.open, "not a regular file: \(kind(of: status.st_mode))")
        }
        return try body(ELFFileReader(descriptor: descriptor, size: UInt64(max(status.st_size, 0))))
    }

    /// What a file that is not a regular one is, by its `st_mode`.
    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a directory"
        default: "of type 0o\(String(mode & S_IFMT, radix: 8))"
        }
    }

    /// The file's dynamic symbols, read after its 64-byte header; nil for a library without a
    /// dynamic section. Throws, saying what the file is, when it is not a shared library for this
    /// machine (the preflight's header check): a text file's bytes read as offsets make no sense.
    func dynamicSymbols() throws(LoadFailure) -> ELFDynamicSymbols? {
        let header = try bytes(at: 0, count: min(64, size), "the ELF header")
        try ELFPreflight.checkHeader(header, fileSize: Int(clamping: size))
        return try ELFDynamicSymbols(file: self, header: header)
    }
}
