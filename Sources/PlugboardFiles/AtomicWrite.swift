import Glibc
import SystemPackage

/// Replaces a file so that readers see either the old contents or the new,
/// never a mix, even if the writer is killed half way.
///
/// The new contents go to a temporary file in the same directory (created
/// with O_EXCL under a random name), are flushed with fsync, and are renamed
/// over the destination in one step; then the directory is flushed so the
/// rename survives a crash. On failure the temporary file is removed. A
/// writer killed before the rename leaves only a temporary file whose name
/// starts with `temporaryNamePrefix`, never a partial destination.
package enum AtomicWrite {
    /// Starts every temporary file's name; hidden (leading dot) and unlike any name a caller would pick.
    static let temporaryNamePrefix = ".plugboard-write-"

    /// Writes `leaf` in `parent` with contents produced by `fill`.
    ///
    /// - Parameters:
    ///   - replacing: whether an existing destination may be replaced; when
    ///     false the rename fails with EEXIST, decided atomically by the kernel.
    ///   - fill: writes the contents into the temporary file.
    static func write(
        into parent: DirectoryDescriptor, as leaf: String, replacing: Bool,
        fill: (OpenFile) throws(Errno) -> Void
    ) throws(Errno) {
        let (file, temporaryName) = try createTemporaryFile(in: parent)
        do {
            try fill(file)
            try file.synchronize()
            try parent.rename(temporaryName, to: parent, as: leaf, replacing: replacing)
        } catch {
            try? parent.unlink(temporaryName)
            throw error
        }
        try parent.synchronize()
    }

    /// Replaces the file at `path` with `bytes`, as ``write(into:as:replacing:fill:)`` does: for a
    /// file written whole outside a container (`plugboard run --trace-file`). The folders on the way
    /// are the caller's choice, so symbolic links among them are followed.
    package static func replace(_ path: String, with bytes: [UInt8]) throws(Errno) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let leaf = slash.map { String(path[path.index(after: $0)...]) } ?? path
        try write(into: try DirectoryDescriptor.open(absolutePath: directory), as: leaf, replacing: true) { file throws(Errno) in
            try file.writeAll(bytes)
        }
    }

    private static func createTemporaryFile(in parent: DirectoryDescriptor) throws(Errno)
        -> (OpenFile, name: String)
    {
        var attempts = 0
        while true {
            let name = temporaryNamePrefix + String(UInt64.random(in: .min ... .max), radix: 16)
            do {
                let file = try parent.openFile(name, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o666)
                return (file, name)
            } catch .fileExists where attempts < 8 {
                attempts += 1
            }
        }
    }
}
