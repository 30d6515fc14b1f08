import Glibc
import SystemPackage

/// Replaces a file so that readers see either the old contents or the new,
/// never a mix, even if the writer is killed half way.
///
/// The new contents go to a file in the same directory that has no name yet
/// (`O_TMPFILE`), are flushed with fsync, and the file is then given its name:
/// linked there directly when nothing may be replaced (the kernel refuses an
/// existing name atomically), else linked under a temporary name and renamed
/// over the destination in one step. Then the directory is flushed so the new
/// entry survives a crash. A writer killed while it writes leaves nothing; one
/// killed in the moment between the link and the rename leaves only a file
/// whose name starts with `temporaryNamePrefix`, never a partial destination.
/// Where the file system cannot make an unnamed file, or `/proc` is not
/// mounted, the contents go to the temporary name from the start (created
/// with O_EXCL under a random name), which a killed writer leaves behind.
package enum AtomicWrite {
    /// Starts every temporary file's name; hidden (leading dot) and unlike any name a caller would pick.
    static let temporaryNamePrefix = ".plugboard-write-"

    /// Whether unnamed files can be given a name here: `linkat` reaches them through `/proc`.
    private static let procMounted = access("/proc/self/fd", X_OK) == 0

    /// Writes `leaf` in `parent` with contents produced by `fill`.
    ///
    /// - Parameters:
    ///   - replacing: whether an existing destination may be replaced; when
    ///     false the link or rename fails with EEXIST, decided atomically by the kernel.
    ///   - fill: writes the contents into the new file.
    static func write(
        into parent: DirectoryDescriptor, as leaf: String, replacing: Bool,
        fill: (OpenFile) throws(Errno) -> Void
    ) throws(Errno) {
        if procMounted, let file = try? parent.openUnnamedFile(mode: 0o666) {
            try fill(file)
            try file.synchronize()
            if replacing {
                let (temporaryName, _) = try named(in: parent) { name throws(Errno) in try parent.link(file, as: name) }
                try rename(temporaryName, to: leaf, in: parent, replacing: true)
            } else {
                try parent.link(file, as: leaf)
            }
        } else {
            let (temporaryName, file) = try named(in: parent) { name throws(Errno) in
                try parent.openFile(name, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o666)
            }
            do {
                try fill(file)
                try file.synchronize()
            } catch {
                try? parent.unlink(temporaryName)
                throw error
            }
            try rename(temporaryName, to: leaf, in: parent, replacing: replacing)
        }
        try parent.synchronize()
    }

    /// Renames the temporary `name` in `parent` to `leaf`, removing it when that fails.
    private static func rename(_ name: String, to leaf: String, in parent: DirectoryDescriptor, replacing: Bool) throws(Errno) {
        do {
            try parent.rename(name, to: parent, as: leaf, replacing: replacing)
        } catch {
            try? parent.unlink(name)
            throw error
        }
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

    /// Makes an entry in `parent` under a new random temporary name with `make` (which fails with
    /// EEXIST when the name is taken, and then another is tried): the name and what `make` returned.
    private static func named<Made>(
        in parent: DirectoryDescriptor, _ make: (String) throws(Errno) -> Made
    ) throws(Errno) -> (name: String, made: Made) {
        var attempts = 0
        while true {
            let name = temporaryNamePrefix + String(UInt64.random(in: .min ... .max), radix: 16)
            do {
                return (name, try make(name))
            } catch .fileExists where attempts < 8 {
                attempts += 1
            }
        }
    }
}
