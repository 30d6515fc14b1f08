import Glibc

/// Linux interfaces the Swift Glibc module does not import (they sit behind
/// `_GNU_SOURCE`), reached through the C library's own symbols so no C
/// target is needed.
enum LinuxSystemCalls {
    /// `renameat2` flag: fail with EEXIST instead of replacing the destination.
    static let renameNoReplace: CUnsignedInt = 1
    /// `open` flag: a descriptor that names a file (even a symbolic link) without opening it for I/O.
    static let openPathOnly: CInt = 0o10_000_000
    /// `open` flag: an unnamed regular file in the directory given (`O_TMPFILE`, which includes `O_DIRECTORY`).
    static let openUnnamedFile: CInt = 0o20_000_000 | O_DIRECTORY
    /// `statx` flag: describe the descriptor itself rather than a path below it.
    static let atEmptyPath: CInt = 0x1000
    /// `statx` mask bit for the birth (creation) time.
    static let statxBirthTime: CUnsignedInt = 0x800

    private typealias Renameat2 = @convention(c) (
        CInt, UnsafePointer<CChar>?, CInt, UnsafePointer<CChar>?, CUnsignedInt
    ) -> CInt
    private typealias Statx = @convention(c) (
        CInt, UnsafePointer<CChar>?, CInt, CUnsignedInt, UnsafeMutableRawPointer?
    ) -> CInt

    private static let renameat2Function = symbol("renameat2", as: Renameat2.self)
    private static let statxFunction = symbol("statx", as: Statx.self)

    private static func symbol<Function>(_ name: String, as type: Function.Type) -> Function? {
        guard let address = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
        return unsafeBitCast(address, to: type)
    }

    /// `renameat2(2)`; sets errno to ENOSYS when the C library lacks it.
    static func renameat2(
        _ oldDirectory: CInt, _ oldName: String, _ newDirectory: CInt, _ newName: String,
        _ flags: CUnsignedInt
    ) -> CInt {
        guard let renameat2Function else {
            errno = ENOSYS
            return -1
        }
        return renameat2Function(oldDirectory, oldName, newDirectory, newName, flags)
    }

    /// The birth time of the file behind `descriptor`, when the kernel and the
    /// file system record one.
    static func birthTime(ofDescriptor descriptor: CInt) -> timespec? {
        guard let statxFunction else { return nil }
        // struct statx is 256 bytes of fixed kernel ABI: stx_mask is the u32 at
        // offset 0, stx_btime the {i64 tv_sec; u32 tv_nsec} at offset 80.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: 256)
        defer { buffer.deallocate() }
        let status = statxFunction(
            descriptor, "", atEmptyPath | AT_SYMLINK_NOFOLLOW, statxBirthTime, buffer)
        guard status == 0, buffer.load(fromByteOffset: 0, as: UInt32.self) & statxBirthTime != 0 else {
            return nil
        }
        let seconds = buffer.load(fromByteOffset: 80, as: Int64.self)
        let nanoseconds = buffer.load(fromByteOffset: 88, as: UInt32.self)
        return timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))
    }
}
