/// The section headers of a 64-bit little-endian ELF file, read once and
/// checked against the file's size; the symbol check looks sections up here.
struct ELFSectionTable {
    /// One `Elf64_Shdr`, the fields the preflight uses.
    struct Section {
        let nameOffset: UInt32
        let type: UInt32
        let flags: UInt64
        let offset: UInt64
        let size: UInt64
        let link: UInt32
        let entrySize: UInt64
    }

    private let sections: [Section]
    private let names: [UInt8]

    /// Reads the table `header` (the 64-byte ELF header) describes; none when the file has no section headers.
    init(file: ELFFileReader, header: [UInt8]) throws(LoadFailure) {
        let offset = header.littleEndian(UInt64.self, at: 40)
        let entrySize = Int(header.littleEndian(UInt16.self, at: 58))
        let count = Int(header.littleEndian(UInt16.self, at: 60))
        guard count > 0 else {
            sections = []
            names = []
            return
        }
        guard entrySize >= 64 else {
            throw LoadFailure(.open, "malformed ELF file: section headers of \(entrySize) bytes, not 64")
        }
        let table = try file.bytes(at: offset, count: UInt64(count * entrySize), "the section header table")
        sections = stride(from: 0, to: table.count, by: entrySize).map { start in
            Section(nameOffset: table.littleEndian(UInt32.self, at: start),
                    type: table.littleEndian(UInt32.self, at: start + 4),
                    flags: table.littleEndian(UInt64.self, at: start + 8),
                    offset: table.littleEndian(UInt64.self, at: start + 24),
                    size: table.littleEndian(UInt64.self, at: start + 32),
                    link: table.littleEndian(UInt32.self, at: start + 40),
                    entrySize: table.littleEndian(UInt64.self, at: start + 56))
        }
        let namesIndex = Int(header.littleEndian(UInt16.self, at: 62))
        if namesIndex > 0, namesIndex < sections.count, sections[namesIndex].type == 3 {  // SHT_STRTAB
            names = (try? file.bytes(at: sections[namesIndex].offset, count: sections[namesIndex].size,
                                     "the section name table")) ?? []
        } else {
            names = []
        }
    }

    /// Whether the file has no section headers.
    var isEmpty: Bool { sections.isEmpty }

    /// The first section of `type` (`SHT_*`), if any.
    func first(ofType type: UInt32) -> Section? {
        sections.first { $0.type == type }
    }

    /// The section at `index`; `what` names it for the error when the index is out of range.
    func section(_ index: Int, _ what: String) throws(LoadFailure) -> Section {
        guard index > 0, index < sections.count else {
            throw LoadFailure(.open, "malformed ELF file: \(what) is section \(index), but the file has \(sections.count) sections")
        }
        return sections[index]
    }

    /// The section's name in quotes, or its type when the name table does not give one.
    func name(of section: Section) -> String {
        let start = Int(section.nameOffset)
        guard start < names.count, let end = names[start...].firstIndex(of: 0), end > start else {
            return "of type \(section.type)"
        }
        return "'" + String(decoding: names[start..<end], as: UTF8.self) + "'"
    }
}
