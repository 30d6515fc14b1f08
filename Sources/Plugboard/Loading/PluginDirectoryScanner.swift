import Glibc
import SystemPackage

/// Lists the candidate plugin files of one directory: every entry named
/// `*.so` that is not a directory, in byte order of the name, so the order is
/// the same on every run and every machine.
package enum PluginDirectoryScanner {
    /// One entry found: its path, and whether its name is UTF-8 (a name that is not is shown
    /// repaired with U+FFFD, a path that names no file).
    package struct Entry: Equatable {
        /// The file's path in the directory.
        package let path: String
        /// Whether the file's name is UTF-8.
        package let nameIsUTF8: Bool
        /// Whether the directory listed the entry as a regular file (not a link to one, nor a device
        /// or a FIFO): the loader may open it before its `stat`, without following a link (the entry
        /// may have been replaced since it was listed).
        package var isRegularFile = false
    }

    /// The candidates of `directory`, in byte order of their names; a directory that cannot be read
    /// fails with why (`does not exist`, `is not a directory`, or the system's error).
    package static func scan(_ directory: String) throws(LoadFailure) -> [Entry] {
        guard let stream = opendir(directory) else {
            let error = Errno(rawValue: errno)
            let message = error == .noSuchFileOrDirectory ? "the plugin directory does not exist"
                : error == .notDirectory ? "the plugin directory is not a directory"
                : "cannot read the plugin directory"
            throw LoadFailure(.scan, message, systemError: error.description)
        }
        defer { closedir(stream) }
        // Every candidate's name, one after the other in one buffer, and where each lies: no array
        // made per file, and each path built in one piece. With each, its first eight bytes as one
        // number (`prefix`), which orders most pairs without a `memcmp`.
        var names: [UInt8] = []
        var found: [(start: Int, count: Int, type: UInt8, prefix: UInt64)] = []
        while let entry = readdir(stream) {
            // The name where it lies, read no further than its record: the last record of the
            // directory's buffer can be shorter than the field `d_name` is declared as.
            let start = UnsafeRawPointer(entry) + nameOffset
            let room = max(0, Int(entry.pointee.d_reclen) - nameOffset)
            let name = UnsafeRawBufferPointer(start: start, count: strnlen(start.assumingMemoryBound(to: CChar.self), room))
            guard isLibraryName(name) else { continue }
            found.append((names.count, name.count, entry.pointee.d_type, prefix(of: name)))
            names.append(contentsOf: name)
        }
        let base = Array((directory.hasSuffix("/") ? directory : directory + "/").utf8)
        return names.withUnsafeBufferPointer { names in
            let nameOf = { (entry: (start: Int, count: Int, type: UInt8, prefix: UInt64)) in
                UnsafeBufferPointer(rebasing: names[entry.start..<entry.start + entry.count])
            }
            let sorted = found.sorted { $0.prefix != $1.prefix ? $0.prefix < $1.prefix : nameOf($0).precedesInByteOrder(nameOf($1)) }
            return sorted.compactMap { entry in
                let name = nameOf(entry)
                // A name that is not UTF-8 is repaired in the path (U+FFFD), which then names no file.
                let path = base.withUnsafeBufferPointer { base in
                    String(unsafeUninitializedCapacity: base.count + name.count) { path in
                        _ = path.initialize(fromContentsOf: base)
                        _ = path[base.count...].initialize(fromContentsOf: name)
                        return base.count + name.count
                    }
                }
                guard (try? UTF8Span(validating: name.span)) != nil else {
                    return entry.type == UInt8(DT_DIR) ? nil : Entry(path: path, nameIsUTF8: false)
                }
                // The type readdir gives spares a stat per file; a symlink or an unknown
                // type is looked at with stat (a name that is not UTF-8 cannot be: its path
                // is spelled differently).
                if entry.type == UInt8(DT_REG) { return Entry(path: path, nameIsUTF8: true, isRegularFile: true) }
                if entry.type == UInt8(DT_DIR) { return nil }
                return (try? FileStatus.of(path))?.isDirectory == true ? nil : Entry(path: path, nameIsUTF8: true)
            }
        }
    }

    /// The first eight bytes of `name` as a big-endian number, zeros past its end: two names whose
    /// numbers differ are in the same order as their bytes (a shorter name's zeros come first, and no
    /// file name holds a zero byte).
    private static func prefix(of name: UnsafeRawBufferPointer) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 { value = value << 8 | UInt64(index < name.count ? name[index] : 0) }
        return value
    }

    /// Where a `dirent`'s name begins (past its end if it could not be known: then no name is read).
    private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? MemoryLayout<dirent>.size

    /// Whether `name` is a library's, `*.so`: compared byte by byte (a comparison through the
    /// generic sequence methods cost ten times as much, for every file of the folder).
    private static func isLibraryName(_ name: UnsafeRawBufferPointer) -> Bool {
        let count = name.count
        return count > 3 && name[count - 3] == UInt8(ascii: ".") && name[count - 2] == UInt8(ascii: "s")
            && name[count - 1] == UInt8(ascii: "o")
    }
}
