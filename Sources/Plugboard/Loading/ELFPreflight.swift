import CPlugboard
import Glibc
import PlugboardSystem
import SystemPackage

/// Reads a file's ELF header and dynamic symbols before `dlopen`, so that
/// a text file, a truncated library, one built for another machine or one
/// whose `plugboard_entry` is not a function gets a precise one-line error
/// instead of the loader's terse text (or a crash), and no code of it runs.
///
/// The file is read once, through one descriptor, with `pread`; every offset
/// and size taken from the file is checked against the file's size first, so
/// a hostile file cannot make the parser read out of bounds.
enum ELFPreflight {
    /// Returns when the file looks like a loadable shared library for this
    /// machine that defines `plugboard_entry` as a function; throws why not.
    /// `fileSize` is the size a `stat` of `path` just gave.
    static func check(_ path: String, fileSize: Int) throws(LoadFailure) {
        let descriptor = try ELFFileReader.openFile(path)
        defer { close(descriptor) }
        try check(descriptor: descriptor, fileSize: fileSize)
    }

    /// ``check(_:fileSize:)`` of the file open as `descriptor`, whose `fstat` gave `fileSize`; the
    /// caller closes the descriptor.
    static func check(descriptor: Int32, fileSize: Int) throws(LoadFailure) {
        let file = ELFFileReader(descriptor: descriptor, size: UInt64(max(fileSize, 0)))
        let header = try file.bytes(at: 0, count: min(64, file.size), "the ELF header")
        try checkHeader(header, fileSize: fileSize)
        try checkEntrySymbol(in: file, header: header)
    }

    // MARK: - The header

    /// Throws unless `bytes`, the start of a file of `fileSize` bytes, are the ELF header of a
    /// shared library for this machine, saying what the file is instead.
    static func checkHeader(_ bytes: [UInt8], fileSize: Int) throws(LoadFailure) {
        if bytes.isEmpty { throw LoadFailure(.open, "not a shared library: the file is empty") }
        guard bytes.starts(with: [0x7F, 0x45, 0x4C, 0x46]) else {
            let looksLikeText = bytes.allSatisfy { $0 == 9 || $0 == 10 || $0 == 13 || (32...126).contains($0) || $0 >= 0x80 }
            throw LoadFailure(.open, looksLikeText
                ? "not a shared library: the file is text, not ELF"
                : "not a shared library: no ELF magic number at the start of the file")
        }
        guard bytes.count >= 64 else {
            throw LoadFailure(.open, "truncated ELF file: \(bytes.count) bytes, but the ELF header alone is 64")
        }
        guard bytes[4] == 2 else {
            throw LoadFailure(.open, "built for a 32-bit machine (ELFCLASS\(bytes[4] == 1 ? "32" : "?\(bytes[4])")); this host is 64-bit")
        }
        guard bytes[5] == 1 else { throw LoadFailure(.open, "built for a big-endian machine; this host is little-endian") }
        let type = bytes.littleEndian(UInt16.self, at: 16)
        let machine = bytes.littleEndian(UInt16.self, at: 18)
        guard machine == hostMachine else {
            throw LoadFailure(.open, "built for \(machineName(machine)); this host is \(machineName(hostMachine))")
        }
        guard type == 3 else {
            let kind = [1: "a relocatable object (.o)", 2: "an executable", 4: "a core dump"][Int(type)] ?? "ELF type \(type)"
            throw LoadFailure(.open, "not a shared library: the file is \(kind)")
        }
        let headersEnd = max(tableEnd(bytes, offsetAt: 32, countAt: 56, entrySizeAt: 54),
                             tableEnd(bytes, offsetAt: 40, countAt: 60, entrySizeAt: 58))
        guard headersEnd <= UInt64(fileSize) else {
            throw LoadFailure(.open, "truncated ELF file: its headers reach byte \(headersEnd), but the file has \(fileSize) bytes")
        }
    }

    /// The end of the program or section header table described at the given header offsets.
    private static func tableEnd(_ bytes: [UInt8], offsetAt: Int, countAt: Int, entrySizeAt: Int) -> UInt64 {
        let offset = bytes.littleEndian(UInt64.self, at: offsetAt)
        let count = UInt64(bytes.littleEndian(UInt16.self, at: countAt))
        let size = UInt64(bytes.littleEndian(UInt16.self, at: entrySizeAt))
        let (length, overflow1) = count.multipliedReportingOverflow(by: size)
        let (end, overflow2) = offset.addingReportingOverflow(length)
        return overflow1 || overflow2 ? .max : end
    }

    // MARK: - The entry symbol

    private static let entryName = Array(PB_ENTRY_SYMBOL.utf8)
    /// The entry symbol's name as the errors quote it (made once: the check runs for every library).
    private static let entryQuoted = "`\(PB_ENTRY_SYMBOL)`"

    /// Looks `plugboard_entry` up in the dynamic symbol table, the way `dlsym`
    /// will, and checks it is a visible function defined in executable code of this file.
    private static func checkEntrySymbol(in file: ELFFileReader, header: [UInt8]) throws(LoadFailure) {
        let quoted = entryQuoted
        guard let symbols = try ELFDynamicSymbols(file: file, header: header) else {
            throw LoadFailure(.entry, "the library has no dynamic section, so it exports no \(quoted): this is not a Plugboard plugin")
        }
        guard let symbol = try symbols.symbol(named: entryName) else {
            throw LoadFailure(.entry, "no \(quoted) symbol in the dynamic symbol table: this is not a Plugboard plugin")
        }
        guard symbol.sectionIndex != 0 else {  // SHN_UNDEF
            throw LoadFailure(.entry, "\(quoted) is undefined in the library: it is imported from another library, not defined by this one")
        }
        guard symbol.visibility == 0 || symbol.visibility == 3 else {  // STV_DEFAULT, STV_PROTECTED
            throw LoadFailure(.entry, "\(quoted) is hidden (not exported); declare it with PB_EXPORT")
        }
        guard symbol.type == 2 else {  // STT_FUNC
            let kinds: [UInt8: String] = [0: "an untyped symbol (STT_NOTYPE)", 1: "a data symbol (STT_OBJECT)",
                                          3: "a section symbol (STT_SECTION)", 4: "a file symbol (STT_FILE)",
                                          5: "a common data symbol (STT_COMMON)", 6: "a thread-local data symbol (STT_TLS)",
                                          10: "an indirect function (STT_GNU_IFUNC), whose resolver would run"]
            throw LoadFailure(.entry, "\(quoted) is \(kinds[symbol.type] ?? "a symbol of type \(symbol.type)"), not a function (STT_FUNC)")
        }
        guard symbols.isExecutable(symbol.value) else {
            throw LoadFailure(.entry, "\(quoted) is at address 0x\(String(symbol.value, radix: 16)), outside the library's executable segments: it is not code")
        }
    }

    // MARK: - Machines

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
