import Foundation
import Glibc
import Plugboard
@testable import plugboard
import Testing

/// A plugin that prints to fd 1, closes fd 1 and 2, or puts control characters in
/// what it logs and registers cannot corrupt the report: the report goes to a private
/// copy of standard output, and the human format escapes control characters.
@Suite struct HostileOutputTests {
    static let goodID = EndToEndRunTests.appID
    /// What the good plugin beside the hostile one logs: every event but open-url,
    /// which the hostile plugin (priority 10) handles first.
    static let goodLogs = ["will-finish-launching", "did-finish-launching", "memory-warning", "will-terminate"]
    static let events = ["will-finish-launching", "did-finish-launching", "open-url", "memory-warning", "will-terminate"]

    struct Case: Sendable, CustomTestStringConvertible {
        let definition: String
        let json: Bool
        var testDescription: String { definition + (json ? " --json" : "") }
    }

    @Test(arguments: [Case(definition: "PRINT_AT=AT_INIT", json: true), Case(definition: "PRINT_AT=AT_OPEN_URL", json: true),
                      Case(definition: "PRINT_AT=AT_INIT", json: false), Case(definition: "PRINT_AT=AT_OPEN_URL", json: false)])
    func whatAPluginPrintsGoesToStandardError(_ test: Case) throws {
        let result = try runBesideAGoodPlugin(test)
        #expect(result.status == 0, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        #expect(result.errorOutput.contains("garbage from stdio") && result.errorOutput.contains("raw garbage on fd 1"),
                "\(result.errorOutput)")
        #expect(!result.output.contains("garbage"), "\(result.output)")
        try checkReport(result, json: test.json)
    }

    @Test(arguments: [Case(definition: "CLOSE_STDIO_AT=AT_INIT", json: true), Case(definition: "CLOSE_STDIO_AT=AT_OPEN_URL", json: true),
                      Case(definition: "CLOSE_STDIO_AT=AT_INIT", json: false)])
    func aPluginClosingStandardOutputAndErrorLeavesTheReportWhole(_ test: Case) throws {
        let result = try runBesideAGoodPlugin(test)
        #expect(result.status == 0, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        try checkReport(result, json: test.json)
    }

    /// Runs a hostile plugin built with `test.definition` beside the good one, through a
    /// URL and an events file.
    private func runBesideAGoodPlugin(_ test: Case) throws -> ProcessResult {
        let workspace = try Workspace("hostile-output")
        defer { workspace.remove() }
        try workspace.plugin("app.so", EndToEndRunTests.app)
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, [test.definition, "HOSTILE_PRIORITY=10"])
        let events = try workspace.events([#"{"event":"memory-warning"}"#])
        return try CLI.run(["run", "--isolation", "none", "--plugin-dir", workspace.plugins, "--open-url", "myapp://x", "--events", events,
                            "--container", workspace.root.file("box")] + (test.json ? ["--json"] : []))
    }

    /// Every event reported, the good plugin's logs all there, and with `--json` every
    /// line an object, the exit line last and only once.
    private func checkReport(_ result: ProcessResult, json: Bool) throws {
        if json {
            let objects = try #require(CLI.runLines(result.output), "a line is not a run line:\n\(result.output)")
            #expect(objects.last?.exitCode == 0, "\(result.output)")
            #expect(objects.filter { $0.exitCode != nil }.count == 1, "\(result.output)")
            #expect(Set(objects.map(\.type)).isSubset(of: CLI.documentedLineTypes), "\(result.output)")
            #expect(objects.eventNames == Self.events,
                    "\(result.output)")
            #expect(objects.logs(of: Self.goodID) == Self.goodLogs, "\(result.output)")
        } else {
            #expect(CLI.eventNames(result.output) == Self.events, "\(result.output)")
            #expect(CLI.pluginLogs(result.output).filter { $0.hasPrefix(Self.goodID) }
                        == Self.goodLogs.map { "\(Self.goodID): \($0)" }, "\(result.output)")
        }
    }

    /// A log message as C source; the human format prints it the same way, escaped.
    static let forgery = #"forged\nFAILED   /usr/lib/forged.so: forged\x1b]0;owned\x07\r\x7f"#
    static let forgeryDecoded = "forged\nFAILED   /usr/lib/forged.so: forged\u{1b}]0;owned\u{07}\r\u{7f}"

    /// A library whose log message, name and version carry a forged host line and terminal escapes.
    @discardableResult
    private func forger(in workspace: Workspace) throws -> String {
        try PluginCompiler.hostile("forger.so", in: workspace.plugins,
                                   ["LOG_AT=AT_OPEN_URL", "HOSTILE_PRIORITY=10", "HOSTILE_MESSAGE=\"\(Self.forgery)\"",
                                    #"HOSTILE_NAME="Name\nFAILED   /x.so: forged name""#,
                                    #"HOSTILE_VERSION="1.0\x1b[2J\a""#])
    }

    /// No byte below 0x20 but the line breaks, and no DEL, on standard output; no forged line.
    private func expectNoControlCharacters(_ output: String) {
        #expect(!output.utf8.contains { ($0 < 0x20 && $0 != UInt8(ascii: "\n")) || $0 == 0x7F }, "\(output)")
        #expect(!output.split(separator: "\n").contains { $0.hasPrefix("FAILED") }, "\(output)")
    }

    @Test func humanRunEscapesMessagesNamesVersionsAndURLs() throws {
        let workspace = try Workspace("hostile-forger-run")
        defer { workspace.remove() }
        try workspace.plugin("app.so", EndToEndRunTests.app)
        try forger(in: workspace)
        let result = try CLI.run(["run", "--isolation", "none", "--plugin-dir", workspace.plugins, "--open-url", "myapp://x\u{1b}[31m\u{7}",
                                  "--container", workspace.root.file("box")])
        #expect(result.status == 0, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        expectNoControlCharacters(result.output)
        #expect(result.output.contains("info: " + Self.forgery), "\(result.output)")
        #expect(result.output.contains(#"com.example.hostile 1.0\x1b[2J\x07 "Name\nFAILED   /x.so: forged name""#), "\(result.output)")
        #expect(result.output.contains(#"open-url myapp://x\x1b[31m\x07 → handled by com.example.hostile"#), "\(result.output)")
        #expect(CLI.pluginLogs(result.output).filter { $0.hasPrefix(Self.goodID) }.count == 3, "\(result.output)")
    }

    @Test func humanListAndInspectEscapeNamesAndVersions() throws {
        let workspace = try Workspace("hostile-forger-list")
        defer { workspace.remove() }
        let path = try forger(in: workspace)
        for arguments in [["list", "--plugin-dir", workspace.plugins], ["inspect", path]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0, "\(arguments[0]): exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
            expectNoControlCharacters(result.output)
            #expect(result.output.contains(#"Name\nFAILED   /x.so: forged name"#), "\(result.output)")
            #expect(result.output.contains(#"1.0\x1b[2J\x07"#), "\(result.output)")
        }
    }

    @Test func jsonCarriesControlCharactersEscapedAndExact() throws {
        let workspace = try Workspace("hostile-forger-json")
        defer { workspace.remove() }
        try forger(in: workspace)
        let result = try CLI.run(["run", "--isolation", "none", "--plugin-dir", workspace.plugins, "--open-url", "myapp://x",
                                  "--container", workspace.root.file("box"), "--json"])
        #expect(result.status == 0, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        let objects = try #require(CLI.runLines(result.output), "a line is not a run line:\n\(result.output)")
        #expect(objects.contains { $0.log?.message == Self.forgeryDecoded }, "\(result.output)")
        let load = try #require(objects.lazy.compactMap(\.load).first)
        let descriptor = load.plugins.first?.descriptor
        #expect(descriptor?.name == "Name\nFAILED   /x.so: forged name", "\(load)")
        #expect(descriptor?.version == "1.0\u{1b}[2J\u{7}", "\(load)")
        #expect(objects.last?.exitCode != nil, "\(result.output)")
    }

    /// Bidirectional controls (U+202A–U+202E, U+2066–U+2069) in a plugin's log, name and version,
    /// and in an echoed URL, are escaped as `\u{202e}` in the human report: they cannot reorder what the
    /// terminal shows. `--json` carries them exactly.
    @Test func humanReportsEscapeBidirectionalControls() throws {
        let workspace = try Workspace("hostile-bidi")
        defer { workspace.remove() }
        try PluginCompiler.hostile("bidi.so", in: workspace.plugins,
                                   ["LOG_AT=AT_OPEN_URL", #"HOSTILE_MESSAGE="paid \u202E0.01$\u202C to \u2066you\u2069""#,
                                    #"HOSTILE_NAME="Name\u202Dforged\u202A""#, #"HOSTILE_VERSION="1.0\u202B\u2067\u2068""#])
        let arguments = ["--isolation", "none", "--plugin-dir", workspace.plugins, "--open-url", "myapp://x\u{202e}y",
                         "--container", workspace.root.file("box")]
        let result = try CLI.run(["run"] + arguments)
        #expect(result.status == 0, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        let bidi = Set((0x202A...0x202E).compactMap(Unicode.Scalar.init) + (0x2066...0x2069).compactMap(Unicode.Scalar.init))
        #expect(!result.output.unicodeScalars.contains { bidi.contains($0) }, "\(result.output.debugDescription)")
        for escaped in [#"info: paid \u{202e}0.01$\u{202c} to \u{2066}you\u{2069}"#, #"1.0\u{202b}\u{2067}\u{2068} "Name\u{202d}forged\u{202a}""#,
                        #"open-url myapp://x\u{202e}y → handled by com.example.hostile"#] {
            #expect(result.output.contains(escaped), "\(escaped) missing: \(result.output)")
        }

        let list = try CLI.run(["list", "--plugin-dir", workspace.plugins])
        #expect(!list.output.unicodeScalars.contains { bidi.contains($0) }, "\(list.output.debugDescription)")
        #expect(list.output.contains(#"Name\u{202d}forged\u{202a}"#), "\(list.output)")

        let json = try CLI.run(["run", "--json"] + arguments)
        let objects = try #require(CLI.runLines(json.output), "a line is not a run line:\n\(json.output)")
        #expect(objects.contains { $0.message == "paid \u{202e}0.01$\u{202c} to \u{2066}you\u{2069}" }, "\(json.output)")
    }

    /// A report that cannot be written ends the command with exit code 74 and one line
    /// on standard error (none when standard error is closed too), never a crash.
    struct LostOutput: Sendable, CustomTestStringConvertible {
        let command: String
        let brokenPipe: Bool
        let closedError: Bool
        var testDescription: String {
            command + (brokenPipe ? ": pipe without a reader" : ": fd 1 closed") + (closedError ? ", fd 2 closed" : "")
        }
    }

    @Test(arguments: [LostOutput(command: "run", brokenPipe: true, closedError: false),
                      LostOutput(command: "run", brokenPipe: false, closedError: false),
                      LostOutput(command: "run", brokenPipe: true, closedError: true),
                      LostOutput(command: "list", brokenPipe: true, closedError: false),
                      LostOutput(command: "inspect", brokenPipe: false, closedError: false)])
    func aLostStandardOutputEndsTheCommandWithExit74(_ test: LostOutput) throws {
        let workspace = try Workspace("lost-output")
        defer { workspace.remove() }
        let path = try workspace.plugin("app.so", EndToEndRunTests.app)
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        close(ends[0])  // no reader: every write to the pipe fails with EPIPE
        defer { close(ends[1]) }
        let arguments = switch test.command {
        case "run": ["run", "--isolation", "none", "--isolation", "none", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("box"), "--json"]
        case "list": ["list", "--plugin-dir", workspace.plugins]
        default: ["inspect", path]
        }
        // The pipe's write end reaches the shell as its fd 3.
        let redirection = (test.brokenPipe ? "exec >&3 3>&-" : "exec >&-") + (test.closedError ? " 2>&-" : "")
        let result = try CLI.run(afterShell: redirection, arguments, passing: [3: ends[1]])
        #expect(result.status == 74, "exit \(result.status)\n\(result.errorOutput)")
        let cause = test.brokenPipe ? "Broken pipe" : "Bad file descriptor"
        #expect(result.errorOutput == (test.closedError ? ""
                    : "plugboard: cannot write the report to standard output: \(cause)\n"), "\(result.errorOutput)")
    }
}
