import Glibc
import Plugboard
import PlugboardSystem
import SystemPackage

/// Byte-exact standard streams: `cat` and `write` pass bytes through unchanged,
/// NUL and bytes that are not UTF-8 included; the report `Console` writes through
/// the same loop.
enum StandardStream {
    /// Every byte of `descriptor` (standard input by default), until end of file; nil when there are
    /// more than `limit` (read no further: `< /dev/zero` ends).
    static func readAll(_ descriptor: Int32 = STDIN_FILENO, atMost limit: Int) throws(Errno) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = try systemCall { chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) } }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > limit { return nil }
        }
    }

    /// Writes all of `bytes` to `descriptor` (standard output by default), through partial writes.
    static func write(_ bytes: [UInt8], to descriptor: Int32 = STDOUT_FILENO) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            offset += try systemCall {
                bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            }
        }
    }

    /// Writes `lines`, each ended by a newline, to standard output in one write: what `files`,
    /// `state` and `new` print. Output that cannot be written (standard output closed or full,
    /// or its reader gone: SIGPIPE is ignored, so that is EPIPE) ends the command with
    /// ``ExitCodes/reportLost`` after one line on standard error (``sayOutputLost(_:command:)``), as
    /// the report of `run` and `list` does: never silently.
    static func output(_ lines: some Sequence<String>, command: String) throws {
        let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        try output(command: command) { write in _ = write(bytes) }
    }

    /// Writes the bytes `produce` hands its `write` to standard output as they are, as
    /// ``output(_:command:)`` does: `files cat` hands a file a chunk at a time. `write` answers
    /// false once output is lost, and `produce` should stop then.
    static func output(command: String, _ produce: (_ write: ([UInt8]) -> Bool) throws -> Void) throws {
        signal(SIGPIPE, SIG_IGN)
        var lost: Errno?
        try produce { bytes in
            do throws(Errno) {
                try write(bytes)
                return true
            } catch {
                lost = error
                return false
            }
        }
        if let lost {
            sayOutputLost(lost, command: command)
            throw ExitCodes.reportLost
        }
    }

    /// Says on standard error that `command`'s output could not be written, and why: one wording
    /// for every command.
    static func sayOutputLost(_ error: Errno, command: String) {
        writeError("\(command): cannot write the report to standard output: \(error)")
    }

    /// Writes `line` and a newline to standard error (best effort: there is nowhere else to report).
    static func writeError(_ line: String) {
        try? write(Array((line + "\n").utf8), to: STDERR_FILENO)
    }

    /// Writes a line a plugin printed in its worker to standard error, attributed and escaped
    /// (`list` and `inspect`, whose report is standard output).
    static func writeOutputLine(_ line: PluginOutputLine) {
        writeError(ControlCharacters.escaped(HumanFormat.output(line)))
    }

    /// Points each of fds 0, 1 and 2 that is closed (a plugin may close them) at
    /// /dev/null, so that no file the host opens later takes its number and
    /// receives what a plugin prints.
    static func reopenClosed() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) < 0 {
            let nowhere = open("/dev/null", O_RDWR)
            guard nowhere >= 0 else { return }
            if nowhere != descriptor {
                dup2(nowhere, descriptor)
                close(nowhere)
            }
        }
    }

    /// Whether standard input is a terminal (then `write` says it is waiting for input).
    static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
}
