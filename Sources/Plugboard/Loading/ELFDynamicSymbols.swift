/// The dynamic symbols of a 64-bit little-endian ELF shared library as the
/// dynamic loader sees them: through the `PT_DYNAMIC` segment (`DT_SYMTAB`,
/// `DT_STRTAB`) and its hash table (`DT_GNU_HASH`, else `DT_HASH`), with every
/// address mapped to a file offset through the `PT_LOAD` segments. Section
/// headers are not used: the loader ignores them, so they could say otherwise.
struct ELFDynamicSymbols {
    /// One `Elf64_Sym`, the fields the preflight uses.
    struct Symbol {
        /// `st_info`: the binding (`STB_*`) in the high four bits, the type in the low four.
        let info: UInt8
        /// `STT_*`.
        var type: UInt8 { info & 0xF }
        /// `STV_*`.
        let visibility: UInt8
        /// `SHN_UNDEF` (0) for a symbol the library imports.
        let sectionIndex: UInt16
        /// The symbol's address, relative to the library's load address.
        let value: UInt64
    }

    /// One `PT_LOAD` segment.
    private struct Segment {
        let address: UInt64
        let offset: UInt64
        let fileSize: UInt64
        let memorySize: UInt64
        let isExecutable: Bool
    }

    private enum HashTable {
        case gnu(offset: UInt64)
        case sysv(offset: UInt64)
    }

    private let file: ELFFileReader
    private let segments: [Segment]
    private let symbolTable: UInt64
    private let stringTable: (offset: UInt64, size: UInt64)
    private let hashTable: HashTable
    /// String-table offsets of the `DT_NEEDED` entries, in order.
    private let neededOffsets: [UInt64]
    /// String-table offset of `DT_RUNPATH`, else of `DT_RPATH`; nil when neither is there.
    private let searchPathOffset: UInt64?

    /// Reads the program headers `header` (the 64-byte ELF header) describes and
    /// the dynamic section; nil when the library has no dynamic section.
    init?(file: ELFFileReader, header: [UInt8]) throws(LoadFailure) {
        self.file = file
        let tableOffset = header.littleEndian(UInt64.self, at: 32)
        let entrySize = Int(header.littleEndian(UInt16.self, at: 54))
        let count = Int(header.littleEndian(UInt16.self, at: 56))
        guard count == 0 || entrySize >= 56 else {
            throw LoadFailure(.open, "malformed ELF file: program headers of \(entrySize) bytes, not 56")
        }
        let scan = try file.withBytes(at: tableOffset, count: count * entrySize, "the program header table") { table in
            var segments: [Segment] = []
            segments.reserveCapacity(4)
            var dynamic: (offset: UInt64, size: UInt64)?
            for start in stride(from: 0, to: table.count, by: max(entrySize, 1)) {  // each entry at least 56 bytes
                let type = table.littleEndian(UInt32.self, at: start)
                let offset = table.littleEndian(UInt64.self, at: start + 8)
                let fileSize = table.littleEndian(UInt64.self, at: start + 32)
                if type == 1 {  // PT_LOAD
                    segments.append(Segment(address: table.littleEndian(UInt64.self, at: start + 16), offset: offset,
                                            fileSize: fileSize, memorySize: table.littleEndian(UInt64.self, at: start + 40),
                                            isExecutable: table.littleEndian(UInt32.self, at: start + 4) & 1 != 0))  // PF_X
                } else if type == 2 {  // PT_DYNAMIC
                    dynamic = (offset, fileSize)
                }
            }
            return (segments, dynamic)
        }
        guard let dynamic = scan.1 else { return nil }
        segments = scan.0
        let dynamicSize = dynamic.size - dynamic.size % 16
        try file.requireRange(at: dynamic.offset, count: dynamicSize, "the dynamic section")  // so the size fits an Int
        let (values, needed) = try file.withBytes(at: dynamic.offset, count: Int(dynamicSize), "the dynamic section") { entries in
            var values = DynamicValues()
            var needed: [UInt64] = []
            for start in stride(from: 0, to: entries.count, by: 16) {
                let tag = entries.littleEndian(UInt64.self, at: start)
                if tag == 0 { break }  // DT_NULL
                let value = entries.littleEndian(UInt64.self, at: start + 8)
                if tag == 1 { needed.append(value) }  // DT_NEEDED
                values.note(tag, value)
            }
            return (values, needed)
        }
        neededOffsets = needed
        searchPathOffset = values.runpath ?? values.rpath
        func required(_ value: UInt64?, _ name: String) throws(LoadFailure) -> UInt64 {
            guard let value else {
                throw LoadFailure(.open, "malformed ELF file: the dynamic section has no \(name)")
            }
            return value
        }
        if let size = values.symbolEntrySize, size != 24 {
            throw LoadFailure(.open, "malformed ELF file: dynamic symbol entries of \(size) bytes (DT_SYMENT), not 24")
        }
        symbolTable = try Self.offset(of: try required(values.symbolTable, "DT_SYMTAB"), in: segments, fileSize: file.size, "the dynamic symbol table")
        stringTable = (try Self.offset(of: try required(values.stringTable, "DT_STRTAB"), in: segments, fileSize: file.size, "the dynamic string table"),
                       try required(values.stringTableSize, "DT_STRSZ"))
        if let gnu = values.gnuHash {
            hashTable = .gnu(offset: try Self.offset(of: gnu, in: segments, fileSize: file.size, "the GNU hash table"))
        } else {
            hashTable = .sysv(offset: try Self.offset(of: try required(values.hash, "DT_HASH or DT_GNU_HASH"), in: segments,
                                                      fileSize: file.size, "the hash table"))
        }
    }

    /// The dynamic section's entries the preflight reads, each the first of its tag (as the loader
    /// takes them). Kept as fields, not a dictionary by tag: hashing every entry of every library
    /// cost more than the rest of reading it.
    private struct DynamicValues {
        var hash: UInt64?
        var stringTable: UInt64?
        var symbolTable: UInt64?
        var stringTableSize: UInt64?
        var symbolEntrySize: UInt64?
        var rpath: UInt64?
        var runpath: UInt64?
        var gnuHash: UInt64?

        /// Notes the entry `tag` with `value`, unless one of its tag came before.
        mutating func note(_ tag: UInt64, _ value: UInt64) {
            switch tag {
            case 4: hash = hash ?? value  // DT_HASH
            case 5: stringTable = stringTable ?? value  // DT_STRTAB
            case 6: symbolTable = symbolTable ?? value  // DT_SYMTAB
            case 10: stringTableSize = stringTableSize ?? value  // DT_STRSZ
            case 11: symbolEntrySize = symbolEntrySize ?? value  // DT_SYMENT
            case 15: rpath = rpath ?? value  // DT_RPATH
            case 29: runpath = runpath ?? value  // DT_RUNPATH
            case 0x6FFF_FEF5: gnuHash = gnuHash ?? value  // DT_GNU_HASH
            default: break
            }
        }
    }

    /// The defined or undefined symbol `name`, looked up the way the loader does; nil when absent.
    func symbol(named name: [UInt8]) throws(LoadFailure) -> Symbol? {
        switch hashTable {
        case .gnu(let offset):
            let hash = name.reduce(UInt32(5381)) { $0 &* 33 &+ UInt32($1) }
            let (buckets, first, bucketsOffset) = try gnuHashHeader(at: offset)
            guard buckets > 0 else { return nil }
            var index = try file.load(UInt32.self, at: bucketsOffset + UInt64(hash) % buckets * 4, "the GNU hash buckets")
            guard index >= first else { return nil }
            let chains = bucketsOffset + buckets * 4
            while true {
                let chained = try file.load(UInt32.self, at: chains + UInt64(index - first) * 4, "the GNU hash chains")
                if chained | 1 == hash | 1, let symbol = try symbol(at: index, ifNamed: name) { return symbol }
                if chained & 1 != 0 || index == .max { return nil }
                index += 1
            }
        case .sysv(let offset):
            let hash = name.reduce(UInt32(0)) { value, byte in
                let shifted = value << 4 &+ UInt32(byte)
                let high = shifted & 0xF000_0000
                return (shifted ^ high >> 24) & ~high
            }
            try file.requireRange(at: offset, count: 8, "the hash table")
            let buckets = UInt64(try file.load(UInt32.self, at: offset, "the hash table"))
            let chained = UInt64(try file.load(UInt32.self, at: offset + 4, "the hash table"))
            guard buckets > 0 else { return nil }
            try file.requireRange(at: offset + 8, count: (buckets + chained) * 4, "the hash table")
            func entry(_ index: UInt64) throws(LoadFailure) -> UInt32 {
                try file.load(UInt32.self, at: offset + 8 + index * 4, "the hash table")
            }
            var index = try entry(UInt64(hash) % buckets)
            for _ in 0..<chained {  // a chain that visits more symbols than there are loops
                guard index != 0 else { return nil }
                guard UInt64(index) < chained else {
                    throw LoadFailure(.open, "malformed ELF file: a hash chain reaches symbol \(index) of \(chained)")
                }
                if let symbol = try symbol(at: index, ifNamed: name) { return symbol }
                index = try entry(buckets + UInt64(index))
            }
            return nil
        }
    }

    /// The names of the symbols the library exports: defined, global or weak, default or
    /// protected visibility, in symbol table order.
    func exportedNames() throws(LoadFailure) -> [String] {
        var names: [String] = []
        for index in 1..<max(try symbolCount(), 1) {
            let (nameOffset, symbol) = try symbol(at: UInt32(index))
            let binding = symbol.info >> 4
            guard symbol.sectionIndex != 0, binding == 1 || binding == 2,  // defined; STB_GLOBAL, STB_WEAK
                  symbol.visibility == 0 || symbol.visibility == 3 else { continue }  // STV_DEFAULT, STV_PROTECTED
            if let name = try string(at: UInt64(nameOffset), upTo: 256) { names.append(name) }
        }
        return names
    }

    /// The libraries the library names in `DT_NEEDED`, and the folders its `DT_RUNPATH` (else
    /// `DT_RPATH`) lists, as written (`$ORIGIN` not expanded).
    func dependencies() throws(LoadFailure) -> (needed: [String], searchPath: [String]) {
        var needed: [String] = []
        for offset in neededOffsets {
            if let name = try string(at: offset, upTo: 4096) { needed.append(name) }
        }
        let searchPath = try searchPathOffset.flatMap { (offset) throws(LoadFailure) in try string(at: offset, upTo: 4096) }
        return (needed, searchPath.map { $0.split(separator: ":").map(String.init) } ?? [])
    }

    /// The NUL-terminated string at `offset` of the dynamic string table (at most `limit` bytes); nil
    /// when the offset is outside the table.
    private func string(at offset: UInt64, upTo limit: UInt64) throws(LoadFailure) -> String? {
        guard offset < stringTable.size else { return nil }
        let (start, overflow) = stringTable.offset.addingReportingOverflow(offset)
        guard !overflow else { throw LoadFailure(.open, "malformed ELF file: the dynamic string table's size (DT_STRSZ) reaches past 2^64") }
        let text = try file.bytes(at: start, count: min(stringTable.size - offset, limit), "the dynamic string table")
        return String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// How many entries the dynamic symbol table has: `nchain` of `DT_HASH`; for `DT_GNU_HASH`,
    /// one past the end of the chain that starts highest.
    private func symbolCount() throws(LoadFailure) -> UInt32 {
        switch hashTable {
        case .sysv(let offset):
            try file.requireRange(at: offset, count: 8, "the hash table")
            return try file.load(UInt32.self, at: offset + 4, "the hash table")
        case .gnu(let offset):
            let (buckets, first, bucketsOffset) = try gnuHashHeader(at: offset)
            try file.requireRange(at: bucketsOffset, count: buckets * 4, "the GNU hash buckets")
            var highest: UInt32?
            for bucket in 0..<buckets {
                let start = try file.load(UInt32.self, at: bucketsOffset + bucket * 4, "the GNU hash buckets")
                highest = max(highest ?? start, start)
            }
            guard var index = highest, index >= first else { return first }
            let chains = bucketsOffset + buckets * 4
            while try file.load(UInt32.self, at: chains + UInt64(index - first) * 4, "the GNU hash chains") & 1 == 0 {
                guard index < .max - 1 else { throw LoadFailure(.open, "malformed ELF file: a GNU hash chain never ends") }
                index += 1
            }
            return index + 1
        }
    }

    /// Whether `address` lies in a loaded segment that is mapped executable.
    func isExecutable(_ address: UInt64) -> Bool {
        segments.contains { $0.isExecutable && address >= $0.address && address - $0.address < $0.memorySize }
    }

    private func symbol(at index: UInt32, ifNamed name: [UInt8]) throws(LoadFailure) -> Symbol? {
        let (nameOffset, symbol) = try symbol(at: index)
        // Only the bytes the name needs, and its NUL, are read from the string table.
        guard UInt64(nameOffset) + UInt64(name.count) < stringTable.size else { return nil }
        let matches = try file.withBytes(at: stringTable.offset + UInt64(nameOffset), count: name.count + 1, "the dynamic string table") {
            $0.last == 0 && $0.prefix(name.count).elementsEqual(name)
        }
        return matches ? symbol : nil
    }

    /// The `Elf64_Sym` at `index` of the symbol table, and its name's offset in the string table.
    private func symbol(at index: UInt32) throws(LoadFailure) -> (nameOffset: UInt32, symbol: Symbol) {
        let start = symbolTable + UInt64(index) * 24
        return try file.withBytes(at: start, count: 24, "the dynamic symbol table") { bytes in
            (bytes.littleEndian(UInt32.self, at: 0),
             Symbol(info: bytes[4], visibility: bytes[5] & 0x3, sectionIndex: bytes.littleEndian(UInt16.self, at: 6),
                    value: bytes.littleEndian(UInt64.self, at: 8)))
        }
    }

    /// The GNU hash table's bucket count, first hashed symbol and where its buckets start.
    private func gnuHashHeader(at offset: UInt64) throws(LoadFailure) -> (buckets: UInt64, first: UInt32, bucketsOffset: UInt64) {
        let what = "the GNU hash table"
        try file.requireRange(at: offset, count: 16, what)
        let buckets = UInt64(try file.load(UInt32.self, at: offset, what))
        let first = try file.load(UInt32.self, at: offset + 4, what)
        let bloomWords = UInt64(try file.load(UInt32.self, at: offset + 8, what))
        return (buckets, first, offset + 16 + bloomWords * 8)
    }

    /// The file offset of the loaded `address`, or why there is none: within the file's `fileSize`
    /// bytes, so that a table's offset plus any 32-bit index times its entry size cannot overflow.
    private static func offset(of address: UInt64, in segments: [Segment], fileSize: UInt64,
                               _ what: String) throws(LoadFailure) -> UInt64 {
        guard let segment = segments.first(where: { address >= $0.address && address - $0.address < $0.fileSize }) else {
            throw LoadFailure(.open, "malformed ELF file: \(what) is at address 0x\(String(address, radix: 16)), outside every loaded segment")
        }
        let (offset, overflow) = segment.offset.addingReportingOverflow(address - segment.address)
        guard !overflow, offset <= fileSize else {
            throw LoadFailure(.open, "malformed ELF file: \(what) is at address 0x\(String(address, radix: 16)), past the end of the file")
        }
        return offset
    }
}
