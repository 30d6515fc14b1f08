import Foundation
import Glibc
import Plugboard
import PlugboardSystem
import Synchronization
import SystemPackage

/// The report of `run`, `list` and `inspect`: whole lines, in order, from any thread
/// (plugins may log from their own threads while the host prints events), written
/// to a private duplicate of standard output that no plugin print can reach.
///
/// Human lines are the one choke point of escaping: whatever a line holds (a
/// plugin's message, name, version, id, an echoed URL), it stays one line, with
/// control characters made visible by ``ControlCharacters``. JSON needs no more:
/// the encoder escapes control characters in strings.
final class Console: Sendable {
    /// The private duplicate of standard output (close-on-exec).
    let descriptor: Int32
    private let lock = Mutex(())

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Takes standard output for the report; call it first, before any plugin code runs.
    ///
    /// Duplicates fd 1 to a private descriptor (at least 3, close-on-exec), then points
    /// fd 1 at standard error, so that whatever a plugin prints, or closes, lands beside
    /// the report and never inside it. A closed fd 2 is pointed at /dev/null first (so no
    /// file opened later takes its place). No standard output ends the process at once,
    /// before any plugin loads.
    static func takeStandardOutput() -> Console {
        let report: Int32
        do {
            report = try systemCall { fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3) }
        } catch {
            lost(error)
        }
        StandardStream.reopenClosed()
        dup2(STDERR_FILENO, STDOUT_FILENO)
        return Console(descriptor: report)
    }

    /// Writes one human line: control characters escaped, then a newline.
    func line(_ text: String) {
        lines(CollectionOfOne(text))
    }

    /// Writes human lines as one unit, each as ``line(_:)`` would: a whole listing in one write.
    func lines(_ texts: some Sequence<String>) {
        var text = ""
        for line in texts { text += ControlCharacters.escaped(line) + "\n" }
        write(text)
    }

    /// Writes `value` as one line of compact JSON.
    func jsonLine(_ value: some Encodable) {
        write(JSONOutput.encode(value, pretty: false) + "\n")
    }

    /// Writes `value` as one pretty-printed JSON document (`list --json`, `inspect --json`).
    func jsonDocument(_ value: some Encodable) {
        write(JSONOutput.encode(value, pretty: true) + "\n")
    }

    /// Writes the document `writer` holds (the same style as ``jsonDocument(_:)``), then a newline.
    func jsonDocument(_ writer: borrowing JSONWriter) {
        write(bytes: writer.bytes + [UInt8(ascii: "\n")])
    }

    /// Writes `text` as one unit, as ``write(bytes:)`` does.
    private func write(_ text: String) {
        write(bytes: Array(text.utf8))
    }

    /// Writes `bytes` as one unit. A report that cannot be written (standard output
    /// closed, or a reader gone: SIGPIPE is ignored, so that is EPIPE) ends the process
    /// with ``ExitCodes/reportLost``, after one line on standard error.
    private func write(bytes: [UInt8]) {
        lock.withLock { _ in
            // Re-asserted at every write: a plugin may have restored SIGPIPE's default action.
            signal(SIGPIPE, SIG_IGN)
            do throws(Errno) {
                try StandardStream.write(bytes, to: descriptor)
            } catch {
                Self.lost(error)
            }
        }
    }

    /// Says on standard error that the report cannot be written, and ends the process at once.
    private static func lost(_ error: Errno) -> Never {
        StandardStream.sayOutputLost(error, command: "plugboard")
        _exit(ExitCodes.reportLost.rawValue)
    }
}

/// The one JSON style of every `--json` output: sorted keys, unescaped slashes.
enum JSONOutput {
    static func encode(_ value: some Encodable, pretty: Bool) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
            : [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            return #"{"error":"cannot encode the report"}"#
        }
    }
}
