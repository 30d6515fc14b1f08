import Foundation

/// The files a library needs loaded with it, found as the dynamic loader finds them: each
/// `DT_NEEDED` name through the library's `DT_RUNPATH` (else `DT_RPATH`, `$ORIGIN` expanded)
/// and `LD_LIBRARY_PATH`, then through the library's needs in turn. Names the loader finds
/// in the system's folders (its cache) are left out: a worker reads those folders anyway.
enum LibraryDependencies {
    /// The files outside the system's folders that `library` needs, directly or not.
    static func files(neededBy library: String, environment: [String: String]) -> [String] {
        let variablePath = (environment["LD_LIBRARY_PATH"] ?? "").split(separator: ":").map(String.init)
        var found: [String] = []
        var queue = [library]
        var seen: Set<String> = [library]
        while let next = queue.popLast(), found.count < 256 {
            guard let (needed, searchPath) = dependencies(of: next) else { continue }
            let origin = ((next as NSString).resolvingSymlinksInPath as NSString).deletingLastPathComponent
            let folders = searchPath.map {
                $0.replacingOccurrences(of: "${ORIGIN}", with: origin).replacingOccurrences(of: "$ORIGIN", with: origin)
            } + variablePath
            for name in needed {
                let candidates = name.contains("/") ? [name] : folders.map { ($0 as NSString).appendingPathComponent(name) }
                guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }),
                      seen.insert(path).inserted else { continue }
                found.append(path)
                queue.append(path)
            }
        }
        return found
    }

    /// The needed names and search folders of the ELF library at `path`; nil when it cannot be read as one.
    private static func dependencies(of path: String) -> (needed: [String], searchPath: [String])? {
        guard let descriptor = try? ELFFileReader.openFile(path) else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let file = ELFFileReader(descriptor: descriptor, size: UInt64(max(status.st_size, 0)))
        guard let header = try? file.bytes(at: 0, count: min(64, file.size), "the ELF header"), header.count == 64,
              let symbols = try? ELFDynamicSymbols(file: file, header: header) else { return nil }
        return try? symbols.dependencies()
    }
}
