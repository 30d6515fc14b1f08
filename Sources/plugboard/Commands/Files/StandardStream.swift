import Glibc

/// A failure to read standard input or write standard output, reported like a facade error.
struct StandardStreamError: Error, CustomStringConvertible {
    /// What was attempted, e.g. "read standard input".
    let operation: String
    /// The system's error number.
    let code: CInt

    var description: String {
        "\(operation): \(String(cString: strerror(code)))"
    }
}

/// Byte-exact standard streams: `cat` and `write` pass bytes through unchanged,
/// NUL and bytes that are not UTF-8 included.
enum StandardStream {
    /// Every byte of standard input, until end of file.
    static func readInput() throws(StandardStreamError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw StandardStreamError(operation: "read standard input", code: errno)
            }
            bytes += chunk[..<count]
        }
    }

    /// Writes all of `bytes` to standard output.
    static func writeOutput(_ bytes: [UInt8]) throws(StandardStreamError) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                write(STDOUT_FILENO, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw StandardStreamError(operation: "write standard output", code: errno)
            }
            offset += count
        }
    }

    /// Writes `line` and a newline to standard error (best effort: there is nowhere else to report).
    static func writeError(_ line: String) {
        var bytes = Array((line + "\n").utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            bytes = bytes.dropFirst(count)
        }
    }

    /// Whether standard input is a terminal (then `write` says it is waiting for input).
    static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
}
