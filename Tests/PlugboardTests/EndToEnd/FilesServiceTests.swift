import Foundation
import Plugboard
@testable import plugboard
import Testing

/// C plugins reach the container through the files host service, end to end
/// through `plugboard run`: every function, its status codes and error text,
/// and confinement.
@Suite struct FilesServiceTests {
    private func logLines(_ output: String) -> [String: String] {
        var steps: [String: String] = [:]
        for record in (CLI.runLines(output) ?? []).compactMap(\.log) {
            let message = record.message
            guard let space = message.firstIndex(of: " ") else { continue }
            steps[String(message[..<space])] = String(message[message.index(after: space)...])
        }
        return steps
    }

    /// In a worker (the files request goes to the host) and in process (the same C table calls the
    /// same files service): every function works, and no path gets out of the container.
    @Test(arguments: ["process", "none"])
    func everyFilesFunctionWorksThroughRun(isolation: String) throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        try FileManager.default.createDirectory(atPath: work.file("plugins"), withIntermediateDirectories: true)
        try PluginCompiler.compile(TestPaths.fixtures + "/files_probe.c", to: work.file("plugins/probe.so"))
        let container = work.file("container")
        try FileManager.default.createDirectory(atPath: work.file("outside"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: container + "/Documents", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: container + "/Documents/link", withDestinationPath: work.file("outside"))

        let result = try run(TestPaths.plugboard, ["run", "--plugin-dir", work.file("plugins"), "--container", container, "--json",
                                                   "--isolation", isolation])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        let steps = logLines(result.output)
        #expect(steps.count == 33, "\(result.output)")
        #expect(steps["write"] == "0 ")
        #expect(steps["write-again"]?.hasPrefix("-5 ") == true, "refused without overwrite: \(steps["write-again"] ?? "")")
        #expect(steps["write-again"]?.contains("destination exists") == true)
        #expect(steps["read"] == "0 hello")
        #expect(steps["overwrite"] == "0 ")
        #expect(steps["copy"] == "0 ")
        #expect(steps["rename"] == "0 ")
        #expect(steps["move"] == "0 ")
        #expect(steps["ext"] == "0 tmp/d.md")
        #expect(steps["exists"] == "0 yes")
        #expect(steps["attributes"] == "0 size=6 kind=0")
        #expect(steps["list"] == #"0 [{"kind":"file","name":"a.txt"}]"#)
        #expect(steps["remove"] == "0 ")
        #expect(steps["read-missing"]?.hasPrefix("-4 ") == true)
        for escape in ["escape-dotdot", "escape-absolute", "escape-directory", "escape-link"] {
            #expect(steps[escape]?.hasPrefix("-6 ") == true, "\(escape): \(steps[escape] ?? "missing")")
        }
        expectLimits(steps)
        #expect(steps["path-frame"]?.hasPrefix("-6 ") == true, "\(steps["path-frame"] ?? "missing")")
        // One worker frame cannot carry 65 MiB; in process, a write takes up to 1 GiB.
        #expect(steps["size-frame"].map { isolation == "none" ? $0 == "0 " : $0.hasPrefix("-1 ") && $0.contains("what one request from a worker carries") } == true,
                "\(steps["size-frame"] ?? "missing")")
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.file("outside")).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: work.path + "/outside.txt"))
        #expect(try String(contentsOfFile: container + "/Documents/notes/a.txt", encoding: .utf8) == "hello!")
        #expect(try FileManager.default.contentsOfDirectory(atPath: container + "/tmp").isEmpty, "tmp emptied at terminate")
    }

    /// The probe's steps past the limits: each refused with its status and a
    /// message naming the limit and the value; the deepest allowed path works.
    private func expectLimits(_ steps: [String: String], sourceLocation: SourceLocation = #_sourceLocation) {
        let refusals: [(step: String, status: String, words: String)] = [
            // The limit is 1 GiB in process, what one request carries from a worker.
            ("size-max", "-1", "write 'tmp/big.bin': size is 18446744073709551615 bytes; the limit is "),
            ("size-huge", "-1", "size is 1073741825 bytes; the limit is "),
            ("control-write", "-6", "invalid name: contains the control character U+001B"),
            ("control-rename", "-6", "invalid name: contains the control character U+000A"),
            ("control-ext", "-6", "invalid name: contains the control character U+007F"),
            ("not-utf8-write", "-6", "the path 'tmp/\u{FFFD}.txt' is not UTF-8; container paths are UTF-8 text"),
            ("not-utf8-write-other", "-6", "the path 'tmp/\u{FFFD}.txt' is not UTF-8"),
            ("not-utf8-rename", "-6", "the new name 'b\u{FFFD}.txt' is not UTF-8"),
            ("too-deep", "-6", "(100005 bytes): invalid name: the container path is 50001 folders deep; the limit is 128"),
            ("too-long", "-6", "(4108 bytes): invalid name: the container path is 4108 bytes long; the limit is 4095"),
        ]
        for refusal in refusals {
            let line = steps[refusal.step] ?? "missing"
            #expect(line.hasPrefix(refusal.status + " "), "\(refusal.step): \(line)", sourceLocation: sourceLocation)
            #expect(line.contains(refusal.words), "\(refusal.step): \(line)", sourceLocation: sourceLocation)
        }
        #expect(steps["too-deep-left-nothing"] == "0 no", sourceLocation: sourceLocation)
        #expect(steps["not-utf8-left-nothing"] == "0 no", sourceLocation: sourceLocation)
        #expect(steps["deepest"] == "0 ", sourceLocation: sourceLocation)
        #expect(steps["last-error-size-max"] == "0 length unset", sourceLocation: sourceLocation)
    }

    /// The container's directories are made before any plugin loads: a plugin's `init` (under
    /// `run` and `call`) and a called function (`call` sends no launch) write into `Documents` of a
    /// container that does not exist yet.
    @Test(arguments: ["process", "none"])
    func pluginsWriteIntoANewContainerBeforeAnyLaunch(isolation: String) throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        try FileManager.default.createDirectory(atPath: work.file("plugins"), withIntermediateDirectories: true)
        try PluginCompiler.compile(TestPaths.fixtures + "/files_probe.c", to: work.file("plugins/probe.so"))
        let called = try CLI.run(["call", "--plugin-dir", work.file("plugins"), "--container", work.file("called"),
                                  "--isolation", isolation, "com.test.files-probe.note", "written by call"])
        #expect(called.status == 0 && called.output.hasPrefix("0\n"), "\(called.output)")
        #expect(FileManager.default.contents(atPath: work.file("called/Documents/note.txt")) == Data("written by call".utf8))
        #expect(FileManager.default.contents(atPath: work.file("called/Documents/init.txt")) == Data("init".utf8))
        let ran = try CLI.run(["run", "--plugin-dir", work.file("plugins"), "--container", work.file("ran"), "--isolation", isolation],
                              input: "")
        #expect(ran.status == 0, "\(ran.output)\(ran.errorOutput)")
        #expect(FileManager.default.contents(atPath: work.file("ran/Documents/init.txt")) == Data("init".utf8))
    }

    @Test func listAndInspectOfferNoContainer() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        try FileManager.default.createDirectory(atPath: work.file("plugins"), withIntermediateDirectories: true)
        try PluginCompiler.compile(TestPaths.fixtures + "/files_probe.c", to: work.file("plugins/probe.so"))
        let result = try run(TestPaths.plugboard, ["inspect", work.file("plugins/probe.so")])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("ABI           \(ABIVersion.host) (host \(ABIVersion.host))"), "\(result.output)")
    }

    @Test func theURLHistoryExampleKeepsItsHistoryAcrossRuns() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        try FileManager.default.createDirectory(atPath: work.file("plugins"), withIntermediateDirectories: true)
        let source = TestPaths.packageRoot.appendingPathComponent("plugins/url-history/url_history.c").path
        try PluginCompiler.compile(source, to: work.file("plugins/url-history.so"), flags: ["-pedantic"])
        let container = work.file("container")
        let first = try run(TestPaths.plugboard, ["run", "--plugin-dir", work.file("plugins"), "--container", container,
                                                  "--open-url", "myapp://item/1", "--open-url", "https://example.com/b"])
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("no history yet"))
        #expect(try String(contentsOfFile: container + "/Documents/history.log", encoding: .utf8)
                == "myapp://item/1\nhttps://example.com/b\n")
        let second = try run(TestPaths.plugboard, ["run", "--plugin-dir", work.file("plugins"), "--container", container])
        #expect(second.output.contains("2 URL(s) opened before"), "\(second.output)")
        #expect(second.output.contains("last: https://example.com/b"))
    }
}
