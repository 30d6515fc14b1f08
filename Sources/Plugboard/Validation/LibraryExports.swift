import Glibc
import PlugboardSystem

/// The symbols a library file exports, read from its dynamic symbol table without loading it.
enum LibraryExports {
    /// The exported names of the library at `path`, or why they cannot be read.
    static func names(in path: String) throws(LoadFailure) -> [String] {
        let descriptor = try ELFFileReader.openFile(path)
        defer { close(descriptor) }
        var status = stat()
        do {
            try systemCall { fstat(descriptor, &status) }
        } catch {
            throw LoadFailure(.open, "cannot read the file's size", systemError: error.description)
        }
        let file = ELFFileReader(descriptor: descriptor, size: UInt64(max(status.st_size, 0)))
        let header = try file.bytes(at: 0, count: min(64, file.size), "the ELF header")
        guard header.count == 64, let symbols = try ELFDynamicSymbols(file: file, header: header) else {
            throw LoadFailure(.open, "the file has no dynamic section")
        }
        return try symbols.exportedNames()
    }
}
