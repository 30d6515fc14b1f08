import Glibc
import PlugboardSystem
import SystemPackage

/// A file `run` writes after the run (`--trace-file`, `--svg`): whole or not at all.
enum OutputFile {
    /// Writes `text` to `path` (absolute) through a new temporary file in the same
    /// directory, renamed over `path` once complete; the temporary file is removed on
    /// failure. Opened only now, with `O_CLOEXEC`, so no plugin ever holds its descriptor.
    /// Throws the sentence naming the file and the cause.
    static func write(_ text: String, to path: String, what: String) throws(OutputFileError) {
        let leaf = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let temporary = String(path[..<leaf]) + "." + path[leaf...] + ".\(getpid()).\(UInt64.random(in: .min ... .max))"
        do throws(Errno) {
            let descriptor = try systemCall { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
            do throws(Errno) {
                defer { close(descriptor) }
                try StandardStream.write(Array(text.utf8), to: descriptor)
                try systemCall { rename(temporary, path) }
            } catch {
                unlink(temporary)
                throw error
            }
        } catch {
            throw OutputFileError(message: "cannot write the \(what) '\(path)': \(error)")
        }
    }
}

/// Why a file of ``OutputFile`` was not written: one sentence.
struct OutputFileError: Error, CustomStringConvertible {
    /// "cannot write the trace file '/path/run.json': No such file or directory".
    let message: String
    var description: String { message }
}
