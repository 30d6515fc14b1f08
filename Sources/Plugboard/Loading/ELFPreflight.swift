import Glibc

/// Reads a file's ELF header before `dlopen`, so that a text file, a truncated
/// library or one built for another machine gets a precise one-line error
/// instead of the loader's terse text, and no code of it runs.
enum ELFPreflight {
    /// nil when the file looks like a loadable shared library for this machine.
    /// `fileSize` is the size a `stat` of `path` just gave; without it the
    /// opened file is `fstat`ed.
    static func check(_ path: String, fileSize: Int? = nil) -> LoadFailure? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            return LoadFailure(.open, "cannot read the file", systemError: SystemError.current().description)
        }
        defer { close(fd) }
        let size: Int
        if let fileSize {
            size = fileSize
        } else {
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                return LoadFailure(.open, "cannot read the file", systemError: SystemError.current().description)
            }
            size = Int(info.st_size)
        }
        var header = [UInt8](repeating: 0, count: 64)
        let count = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, 64) }
        guard count >= 0 else {
            return LoadFailure(.open, "cannot read the file", systemError: SystemError.current().description)
        }
        return verdict(header: header.prefix(count), fileSize: size)
    }

    static func verdict(header: ArraySlice<UInt8>, fileSize: Int) -> LoadFailure? {
        let bytes = Array(header)
        if bytes.isEmpty { return LoadFailure(.open, "not a shared library: the file is empty") }
        guard bytes.starts(with: [0x7F, 0x45, 0x4C, 0x46]) else {
            let looksLikeText = bytes.allSatisfy { $0 == 9 || $0 == 10 || $0 == 13 || (32...126).contains($0) || $0 >= 0x80 }
            return LoadFailure(.open, looksLikeText
                ? "not a shared library: the file is text, not ELF"
                : "not a shared library: no ELF magic number at the start of the file")
        }
        guard bytes.count >= 64 else {
            return LoadFailure(.open, "truncated ELF file: \(bytes.count) bytes, but the ELF header alone is 64")
        }
        guard bytes[4] == 2 else {
            return LoadFailure(.open, "built for a 32-bit machine (ELFCLASS\(bytes[4] == 1 ? "32" : "?\(bytes[4])")); this host is 64-bit")
        }
        guard bytes[5] == 1 else { return LoadFailure(.open, "built for a big-endian machine; this host is little-endian") }
        let type = UInt16(bytes[16]) | UInt16(bytes[17]) << 8
        let machine = UInt16(bytes[18]) | UInt16(bytes[19]) << 8
        guard machine == hostMachine else {
            return LoadFailure(.open, "built for \(machineName(machine)); this host is \(machineName(hostMachine))")
        }
        guard type == 3 else {
            let kind = [1: "a relocatable object (.o)", 2: "an executable", 4: "a core dump"][Int(type)] ?? "ELF type \(type)"
            return LoadFailure(.open, "not a shared library: the file is \(kind)")
        }
        let headersEnd = max(tableEnd(bytes, offsetAt: 32, countAt: 56, entrySizeAt: 54),
                             tableEnd(bytes, offsetAt: 40, countAt: 60, entrySizeAt: 58))
        guard headersEnd <= UInt64(fileSize) else {
            return LoadFailure(.open, "truncated ELF file: its headers reach byte \(headersEnd), but the file has \(fileSize) bytes")
        }
        return nil
    }

    /// The end of the program or section header table described at the given header offsets.
    private static func tableEnd(_ bytes: [UInt8], offsetAt: Int, countAt: Int, entrySizeAt: Int) -> UInt64 {
        let offset = bytes[offsetAt..<offsetAt + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let count = UInt64(bytes[countAt]) | UInt64(bytes[countAt + 1]) << 8
        let size = UInt64(bytes[entrySizeAt]) | UInt64(bytes[entrySizeAt + 1]) << 8
        let (length, overflow1) = count.multipliedReportingOverflow(by: size)
        let (end, overflow2) = offset.addingReportingOverflow(length)
        return overflow1 || overflow2 ? .max : end
    }

    #if arch(x86_64)
    static let hostMachine: UInt16 = 62
    #elseif arch(arm64)
    static let hostMachine: UInt16 = 183
    #elseif arch(riscv64)
    static let hostMachine: UInt16 = 243
    #else
    static let hostMachine: UInt16 = 0
    #endif

    static func machineName(_ machine: UInt16) -> String {
        let names: [UInt16: String] = [3: "x86 (32-bit)", 8: "MIPS", 20: "PowerPC", 21: "PowerPC 64", 22: "s390",
                                       40: "ARM (32-bit)", 62: "x86-64", 183: "AArch64", 243: "RISC-V"]
        return names[machine].map { "\($0) (machine \(machine))" } ?? "ELF machine \(machine)"
    }
}
