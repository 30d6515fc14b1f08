import Glibc
import PlugboardFiles
import PlugboardSystem
import SystemPackage

/// A file `run` writes after the run (`--trace-file`, `--svg`): whole or not at all.
enum OutputFile {
    /// Writes `text` to `path` (absolute), opened only now, with `O_CLOEXEC`, so no plugin ever
    /// holds its descriptor. A regular file (or a new one) is replaced whole (``AtomicWrite``: a
    /// temporary file in its directory, synced and renamed over it, removed on failure); through
    /// a symbolic link, the file it leads to is the one replaced. A device, FIFO or socket
    /// (a terminal, a named pipe) is written in place, as a shell's redirection would: renaming
    /// over it would put a regular file where it was. Standard output by name (``standardOutputNames``)
    /// is `standardOutput`, the report's descriptor, as fd 1 no longer is in `run`
    /// (``Console/takeStandardOutput()`` points it at standard error); a named pipe that no process
    /// reads is an error at once, not a wait for a reader. Throws the sentence naming the file and
    /// the cause.
    static func write(_ text: String, to path: String, what: String, standardOutput: Int32) throws(OutputFileError) {
        var status = stat()
        do throws(Errno) {
            if standardOutputNames.contains(path) { return try StandardStream.write(Array(text.utf8), to: standardOutput) }
            guard path.withCString({ stat($0, &status) }) == 0 else {
                guard errno == ENOENT else { throw Errno(rawValue: errno) }
                return try AtomicWrite.replace(path, with: Array(text.utf8))
            }
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                try AtomicWrite.replace(try realPath(path), with: Array(text.utf8))
            case S_IFDIR:
                throw Errno.isDirectory
            default:
                let descriptor = try systemCall { open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK) }
                defer { close(descriptor) }
                _ = fcntl(descriptor, F_SETFL, 0)
                try StandardStream.write(Array(text.utf8), to: descriptor)
            }
        } catch {
            let unread = error == .noSuchAddressOrDevice && status.st_mode & S_IFMT == S_IFIFO
            throw OutputFileError(message: "cannot write the \(what) \(quoted: path): \(unread ? "no process reads the named pipe" : "\(error)")")
        }
    }

    /// The names of the process's standard output.
    static let standardOutputNames: Set<String> = ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]

    /// `path` with every symbolic link resolved.
    private static func realPath(_ path: String) throws(Errno) -> String {
        guard let resolved = realpath(path, nil) else { throw Errno(rawValue: errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// Why a file of ``OutputFile`` was not written: one sentence.
struct OutputFileError: Error, CustomStringConvertible {
    /// "cannot write the trace file '/path/run.json': No such file or directory".
    let message: String
    var description: String { message }
}
