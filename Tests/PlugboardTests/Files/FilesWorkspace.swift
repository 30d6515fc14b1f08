import Foundation
import Glibc
import Testing

/// A temporary folder holding one test's container (`c`) and whatever the test puts
/// next to it (files "outside" the container), with `plugboard files` pointed at it.
struct FilesWorkspace {
    let root: TemporaryDirectory

    /// The container root, `<root>/c`; it does not exist until a command creates it.
    var container: String { root.file("c") }

    init(_ label: String) throws {
        root = try TemporaryDirectory("plugboard-files-\(label)")
    }

    /// The absolute path of a container path.
    func path(_ containerPath: String) -> String { container + "/" + containerPath }

    /// Runs `plugboard files arguments… --container <root>/c`.
    func files(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try CLI.run(["files"] + arguments + ["--container", container], input: input)
    }

    /// Runs `plugboard files arguments…` through `/bin/sh`, so standard input can come
    /// from a file and standard output go to one byte for byte (the `run` helper passes
    /// strings); `directory` is the child's working directory. `launcher` (a command and its
    /// arguments, such as `prlimit`) runs the binary when given.
    func filesRedirected(
        _ arguments: [String], stdinFile: String? = nil, stdoutFile: String? = nil,
        directory: String? = nil, environment: [String: String] = [:], through launcher: [String] = []
    ) throws -> ProcessResult {
        var script = #"exec "$0" "$@""#
        if stdinFile != nil { script += #" <"$FILES_TEST_STDIN""# }
        if stdoutFile != nil { script += #" >"$FILES_TEST_STDOUT""# }
        if directory != nil { script = #"cd "$FILES_TEST_CWD" && "# + script }
        var env = ProcessInfo.processInfo.environment
        env["PLUGBOARD_PLUGIN_PATH"] = nil
        env["FILES_TEST_STDIN"] = stdinFile
        env["FILES_TEST_STDOUT"] = stdoutFile
        env["FILES_TEST_CWD"] = directory
        env.merge(environment) { $1 }
        return try run("/bin/sh", ["-c", script] + launcher + [try CLI.binary(), "files"] + arguments, environment: env)
    }

    /// The bytes of a file, or nil when it cannot be read.
    func bytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    /// The text of a file, or nil when it cannot be read.
    func text(_ path: String) -> String? {
        bytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The kind of the entry itself at an absolute path (a symbolic link is not followed).
    func kind(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }

    /// The permission bits of the entry itself.
    func permissions(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & 0o7777 : nil
    }

    func remove() { root.remove() }
}

/// Expectations on a `files` result.
enum FilesExpect {
    /// Exit 0 and nothing on standard error.
    static func success(_ result: ProcessResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 0, "\(what): exit \(result.status)\n\(result.errorOutput)", sourceLocation: sourceLocation)
        #expect(result.errorOutput.isEmpty, "\(what): \(result.errorOutput)", sourceLocation: sourceLocation)
    }

    /// Exit 1, nothing on standard output, and exactly one line on standard error,
    /// `plugboard files: …`, containing each of `words`.
    static func failure(_ result: ProcessResult, _ words: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)", sourceLocation: sourceLocation)
        #expect(result.output.isEmpty, "stdout: \(result.output)", sourceLocation: sourceLocation)
        #expect(result.errorOutput.hasPrefix("plugboard files: "), "\(result.errorOutput)", sourceLocation: sourceLocation)
        #expect(result.errorOutput.filter { $0 == "\n" }.count == 1 && result.errorOutput.hasSuffix("\n"),
                "not one line: \(String(reflecting: result.errorOutput))", sourceLocation: sourceLocation)
        for word in words {
            #expect(result.errorOutput.contains(word), "stderr lacks \(String(reflecting: word)): \(result.errorOutput)",
                    sourceLocation: sourceLocation)
        }
    }

    /// A JSON document, parsed.
    static func json(_ result: ProcessResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
        try #require(try? JSONSerialization.jsonObject(with: Data(result.output.utf8)),
                     "not JSON:\n\(result.output)\n\(result.errorOutput)", sourceLocation: sourceLocation)
    }

    /// Whether `text` is an ISO 8601 instant such as 2026-03-01T12:34:56Z.
    static func isISO8601(_ text: String) -> Bool {
        (try? Date.ISO8601FormatStyle().parse(text)) != nil
    }
}
