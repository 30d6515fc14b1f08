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
        /// Whether the directory says the entry is a regular file (not a link to one, nor a device or
        /// a FIFO), so that opening it before its `stat` has no effect beyond reading it.
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
        var entries: [(name: [UInt8], type: UInt8)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard isLibraryName(name) else { continue }
            entries.append((name, entry.pointee.d_type))
        }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return entries.sorted { precedes($0.name, $1.name) }.compactMap { entry in
            // The type readdir gives spares a stat per file; a symlink or an unknown
            // type is looked at with stat. A name that is not UTF-8 cannot be (its path
            // would be spelled differently).
            guard let name = String(validating: entry.name, as: UTF8.self) else {
                return entry.type == UInt8(DT_DIR) ? nil : Entry(path: base + String(decoding: entry.name, as: UTF8.self), nameIsUTF8: false)
            }
            if entry.type == UInt8(DT_REG) { return Entry(path: base + name, nameIsUTF8: true, isRegularFile: true) }
            if entry.type == UInt8(DT_DIR) { return nil }
            let path = base + name
            return (try? FileStatus.of(path))?.isDirectory == true ? nil : Entry(path: path, nameIsUTF8: true)
        }
    }

    /// Whether `name` is a library's, `*.so`: compared byte by byte (a comparison through the
    /// generic sequence methods cost ten times as much, for every file of the folder).
    private static func isLibraryName(_ name: [UInt8]) -> Bool {
        let count = name.count
        return count > 3 && name[count - 3] == UInt8(ascii: ".") && name[count - 2] == UInt8(ascii: "s")
            && name[count - 1] == UInt8(ascii: "o")
    }

    /// Byte order of two names (`memcmp`, then the shorter first).
    private static func precedes(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        let order = lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right -> Int32 in
                guard let l = left.baseAddress, let r = right.baseAddress else { return 0 }
                return memcmp(l, r, min(left.count, right.count))
            }
        }
        return order != 0 ? order < 0 : lhs.count < rhs.count
    }
}
