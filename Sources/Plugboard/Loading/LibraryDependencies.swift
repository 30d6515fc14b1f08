import Glibc

/// The files a library needs loaded with it, found as the dynamic loader finds them: each
/// `DT_NEEDED` name through the library's `DT_RUNPATH` (else `DT_RPATH`, `$ORIGIN` expanded)
/// and `LD_LIBRARY_PATH`, then through the library's needs in turn. Names the loader finds
/// in the system's folders (its cache) are left out: a worker reads those folders anyway.
/// Without Foundation: a worker runs this before anything else, and Foundation's first use costs.
enum LibraryDependencies {
    /// The files outside the system's folders that `library` needs, directly or not.
    static func files(neededBy library: String, environment: [String: String]) -> [String] {
        let variablePath = (environment["LD_LIBRARY_PATH"] ?? "").split(separator: ":").map(String.init)
        var found: [String] = []
        var queue = [library]
        var seen: Set<String> = [library]
        while let next = queue.popLast(), found.count < 256 {
            guard let (needed, searchPath) = dependencies(of: next) else { continue }
            let folders = searchPath.map { expandingOrigin($0, of: next) } + variablePath
            for name in needed {
                let candidates = name.contains("/") ? [name] : folders.map { $0 + "/" + name }
                guard let path = candidates.first(where: { access($0, F_OK) == 0 }),
                      seen.insert(path).inserted else { continue }
                found.append(path)
                queue.append(path)
            }
        }
        return found
    }

    /// A path's folder and last component ("/a/b.so" → ("/a", "b.so"); "b.so" → (".", "b.so")).
    private static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        return (slash == path.startIndex ? "/" : String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    /// `folder` (an entry of `library`'s search path) with `$ORIGIN` and `${ORIGIN}` replaced by
    /// the folder of the file `library` is (links resolved), as the loader does.
    private static func expandingOrigin(_ folder: String, of library: String) -> String {
        guard folder.contains("ORIGIN") else { return folder }
        let resolved = realpath(library, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        } ?? library
        let origin = split(resolved).folder
        var expanded = ""
        var rest = Substring(folder)
        while let dollar = rest.firstIndex(of: "$") {
            expanded += rest[..<dollar]
            let after = rest[rest.index(after: dollar)...]
            if after.hasPrefix("{ORIGIN}") {
                expanded += origin
                rest = after.dropFirst("{ORIGIN}".count)
            } else if after.hasPrefix("ORIGIN") {
                expanded += origin
                rest = after.dropFirst("ORIGIN".count)
            } else {
                expanded += "$"
                rest = after
            }
        }
        return expanded + rest
    }

    /// The program that runs `program` when it is executed: an ELF file's interpreter (`PT_INTERP`,
    /// the dynamic loader), or a script's `#!` line's; nil for neither.
    static func interpreter(of program: String) -> String? {
        try? ELFFileReader.reading(program) { (file) throws(LoadFailure) in try interpreter(in: file) }
    }

    /// The interpreter `file` names (see ``interpreter(of:)``).
    private static func interpreter(in file: ELFFileReader) throws(LoadFailure) -> String? {
        let start = try file.bytes(at: 0, count: min(256, file.size), "the start")
        if start.starts(with: Array("#!".utf8)) {
            let line = start.dropFirst(2).prefix { $0 != UInt8(ascii: "\n") }
            return String(decoding: line, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
        }
        guard start.count >= 64, start.starts(with: [0x7F, 0x45, 0x4C, 0x46]), start[4] == 2 else { return nil }
        let tableOffset = start.littleEndian(UInt64.self, at: 32)
        let entrySize = UInt64(start.littleEndian(UInt16.self, at: 54)), count = UInt64(start.littleEndian(UInt16.self, at: 56))
        guard entrySize >= 56 else { return nil }
        let table = try file.bytes(at: tableOffset, count: entrySize * count, "the program headers")
        for entry in stride(from: 0, to: table.count, by: Int(entrySize)) where table.littleEndian(UInt32.self, at: entry) == 3 {  // PT_INTERP
            let offset = table.littleEndian(UInt64.self, at: entry + 8), size = table.littleEndian(UInt64.self, at: entry + 32)
            guard size < 4096 else { return nil }
            return String(decoding: try file.bytes(at: offset, count: size, "the interpreter").prefix { $0 != 0 }, as: UTF8.self)
        }
        return nil
    }

    /// The needed names and search folders of the ELF library at `path`; nil when it cannot be read as one.
    private static func dependencies(of path: String) -> (needed: [String], searchPath: [String])? {
        try? ELFFileReader.reading(path) { (file) throws(LoadFailure) in try file.dynamicSymbols()?.dependencies() }
    }
}
