import ArgumentParser
import Glibc
import PlugboardSystem
import SystemPackage

/// Writes a project's files into a folder that does not exist yet or is empty, all or nothing:
/// into a new temporary sibling folder first, which is then renamed to the destination (or, for
/// an empty folder that exists, whose entries are moved into it).
enum ProjectWriter {
    /// Why the project could not be written: what was being done, to which path, and the system's cause.
    struct Failure: Error, CustomStringConvertible {
        /// What was being done, a verb phrase: `write`, `create the temporary folder in`.
        let operation: String
        /// The path it was done to, as the user named it (the staging folder is never shown).
        let path: String
        /// The system's error.
        let cause: Errno
        var description: String { "cannot \(operation) \(path): \(cause)" }
    }

    /// `directory`, or, when it is a symbolic link to a folder, that folder: the project goes into
    /// the folder (renamed to the link's name, it would replace the link instead).
    static func destination(_ directory: String) -> String {
        var status = stat()
        guard lstat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFLNK,
              stat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR,
              let resolved = realpath(directory, nil) else { return directory }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A usage error unless `directory` is missing (in an existing folder) or an empty folder.
    static func checkDestination(_ directory: String) throws {
        var status = stat()
        if lstat(directory, &status) != 0 {
            let parent = WorkingDirectory.folder(holding: directory)
            guard stat(parent, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw ValidationError("the folder \(parent), where \(directory) would go, does not exist")
            }
            return
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw ValidationError("\(directory) exists and is not a folder; choose another --dir")
        }
        guard let entries = opendir(directory) else {
            throw ValidationError("\(directory) exists and cannot be read: \(Errno(rawValue: errno))")
        }
        defer { closedir(entries) }
        while let entry = readdir(entries) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." {
                throw ValidationError("\(directory) exists and is not empty; choose another --dir, or empty it")
            }
        }
    }

    /// Writes `files` (paths relative to the project) so that `directory` appears with all of
    /// them or not at all. An empty `directory` that exists is filled, not replaced: it keeps its
    /// mode, and a shell standing in it stays in a folder that holds the project.
    static func write(_ files: [ProjectFile], to directory: String) throws(Failure) {
        let parent = WorkingDirectory.folder(holding: directory)
        let name = String(directory[directory.index(after: directory.lastIndex(of: "/") ?? directory.startIndex)...])
        var template = Array("\(parent)/.\(name).plugboard-new-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw Failure(operation: "create a temporary folder in", path: parent, cause: Errno(rawValue: errno))
        }
        let staging = String(cString: made)
        var created = [staging]
        do throws(Failure) {
            try attempt("set the mode of", directory) { chmod(staging, 0o755) }
            for file in files {
                var folder = staging
                for component in file.path.split(separator: "/").dropLast() {
                    folder += "/" + component
                    if !created.contains(folder) {
                        try attempt("create the folder", directory + folder.dropFirst(staging.count)) { mkdir(folder, 0o755) }
                        created.append(folder)
                    }
                }
                let path = staging + "/" + file.path
                let shown = directory + "/" + file.path
                let descriptor = try attempt("create", shown) { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
                created.append(path)
                defer { close(descriptor) }
                do { try StandardStream.write(Array(file.text.utf8), to: descriptor) } catch {
                    throw Failure(operation: "write", path: shown, cause: error)
                }
            }
            var status = stat()
            if lstat(directory, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR {
                try moveEntries(of: staging, into: directory, named: files)
                rmdir(staging)
            } else {
                try attempt("move the finished project to", directory) { rename(staging, directory) }
            }
        } catch {
            for path in created.reversed() { _ = remove(path) }
            throw error
        }
    }

    /// Moves the top-level entries of `files`, written in `staging`, into the existing `directory`:
    /// all of them, or, when one cannot be moved, none (those moved are moved back).
    private static func moveEntries(of staging: String, into directory: String, named files: [ProjectFile]) throws(Failure) {
        var entries: [Substring] = []
        for file in files {
            if let entry = file.path.split(separator: "/").first, !entries.contains(entry) { entries.append(entry) }
        }
        var moved: [Substring] = []
        do throws(Failure) {
            for entry in entries {
                let target = "\(directory)/\(entry)"
                // Empty when checked; a file that appeared since is not replaced.
                guard access(target, F_OK) != 0 else { throw Failure(operation: "create", path: target, cause: .fileExists) }
                try attempt("move the finished project's files to", directory) { rename("\(staging)/\(entry)", target) }
                moved.append(entry)
            }
        } catch {
            for entry in moved.reversed() { _ = rename("\(directory)/\(entry)", "\(staging)/\(entry)") }
            throw error
        }
    }

    /// Runs a system call, a ``Failure`` naming `operation` and `path` when it fails.
    @discardableResult
    private static func attempt(_ operation: String, _ path: String, _ call: () -> Int32) throws(Failure) -> Int32 {
        do { return try systemCall(call) } catch { throw Failure(operation: operation, path: path, cause: error) }
    }
}
