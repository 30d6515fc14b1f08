import Foundation
import Glibc
import Plugboard
@testable import plugboard
import Testing

/// `plugboard run`: launch → events → terminate, in the human report and in JSON lines.
@Suite struct EndToEndRunTests {
    static let appID = "com.e2e.app"
    static let app = ["FIX_ID=\"\(appID)\"", "FIX_LAUNCH=1", "FIX_OPEN_URL=1", "FIX_BROADCASTS", "FIX_TERMINATE"]
    static let script = [
        #"{"event":"open-url","url":"myapp://item/42"}"#,
        #"{"event":"memory-warning"}"#,
        #"{"event":"did-enter-background"}"#,
    ]
    static let expectedEvents = ["will-finish-launching", "did-finish-launching", "open-url", "memory-warning",
                                 "did-enter-background", "will-terminate"]
    static let expectedLogs = ["will-finish-launching", "did-finish-launching", "open-url myapp://item/42", "memory-warning",
                               "did-enter-background", "will-terminate"]

    /// Where the events come from and how the report is printed.
    struct Mode: Sendable, CustomTestStringConvertible {
        let standardInput: Bool
        let json: Bool
        var testDescription: String { (standardInput ? "--events -" : "--events FILE") + (json ? " --json" : "") }
    }

    @Test(arguments: [Mode(standardInput: false, json: false), Mode(standardInput: true, json: false),
                      Mode(standardInput: false, json: true), Mode(standardInput: true, json: true)])
    func launchEventsTerminateInOrder(_ mode: Mode) throws {
        let workspace = try Workspace("run-order")
        defer { workspace.remove() }
        let path = try workspace.plugin("app.so", Self.app)
        let events = try workspace.events(Self.script)
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--events", mode.standardInput ? "-" : events]
                                     + (mode.json ? ["--json"] : []),
                                 input: mode.standardInput ? Self.script.joined(separator: "\n") + "\n" : nil)
        #expect(result.status == 0, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        if mode.json {
            try checkJSON(result, library: path)
        } else {
            try checkHuman(result)
        }
    }

    private func checkHuman(_ result: ProcessResult) throws {
        #expect(CLI.eventNames(result.output) == Self.expectedEvents, "\(result.output)")
        #expect(CLI.pluginLogs(result.output).filter { $0.hasPrefix(Self.appID) }
                    == Self.expectedLogs.map { "\(Self.appID): \($0)" }, "\(result.output)")
        #expect(result.output.contains("open-url myapp://item/42 → handled by \(Self.appID)"), "\(result.output)")
        // Each plugin log line comes right before the report of its event.
        let lines = result.output.split(separator: "\n").map(String.init)
        for event in ["will-finish-launching", "memory-warning", "will-terminate"] {
            let index = try #require(lines.firstIndex { $0.hasPrefix(event + " → ") }, "\(result.output)")
            #expect(lines[index - 1] == "  [\(Self.appID)] info: \(event)", "\(result.output)")
        }
    }

    private func checkJSON(_ result: ProcessResult, library path: String) throws {
        let lines = try #require(CLI.runLines(result.output), "a line is not a run line:\n\(result.output)")
        try #require(lines.count >= 14, "\(result.output)")
        let types = lines.map(\.type)
        #expect(types.first == "load" && types.last == "exit", "\(types)")
        #expect(Set(types).isSubset(of: CLI.documentedLineTypes), "\(types)")
        #expect(lines[0].load?.path == path && lines[0].load?.status == .loaded, "\(lines[0])")
        #expect(lines.last?.exitCode == 0)
        let events = lines.events
        #expect(lines.eventNames == Self.expectedEvents, "\(result.output)")
        // Besides the plugin under test, only the built-in files plugin takes part (launch and terminate).
        #expect(events.allSatisfy { $0.calls.map(\.plugin.rawValue)
                                        .filter { $0 != "org.plugboard.files" } == [Self.appID] }, "\(result.output)")
        #expect(events.first { $0.event == .openURL }?.decidedBy.map(\.rawValue) == [Self.appID])
        let logs = lines.compactMap(\.log).filter { $0.plugin == Self.appID }
        #expect(logs.map(\.message) == Self.expectedLogs, "\(result.output)")
        #expect(logs.allSatisfy { $0.source == path && $0.level == .info })
        // Each log line precedes its event line.
        let order = lines.compactMap { line -> String? in
            switch line {
            case .log(let record) where record.plugin == Self.appID: "log " + record.message
            case .event(let report): "event " + report.event.name
            default: nil
            }
        }
        var expectedOrder: [String] = []
        for (log, event) in zip(Self.expectedLogs, Self.expectedEvents) {
            expectedOrder += ["log " + log, "event " + event]
        }
        #expect(order == expectedOrder, "\(order)")
    }

    static let malformedScript = [
        #"{"event":"memory-warning"}"#,
        #"not json"#,
        "",
        #"{"event":"explode"}"#,
        #"{"event":"memory-warning","loud":true}"#,
        #"{"event":"open-url"}"#,
        #"{"event":"did-finish-launching"}"#,
        #"{"event":"memory-warning","event":"will-terminate"}"#,
        #"{"event":"did-become-active"}"#,
    ]
    /// Line number and key words of each input error.
    static let malformedErrors: [(Int, [String])] = [
        (2, ["not valid JSON"]),
        (4, ["unknown event", "explode"]),
        (5, ["unknown field", "loud", "memory-warning"]),
        (6, ["open-url", "needs", "url"]),
        (7, ["did-finish-launching", "cannot be scripted"]),
        (8, ["not valid JSON", "line 1, column 27: the key \"event\" appears twice in one object"]),
    ]

    @Test func malformedLinesAreReportedWithTheirNumberAndSkipped() throws {
        let workspace = try Workspace("run-malformed")
        defer { workspace.remove() }
        try workspace.plugin("app.so", Self.app)
        let events = try workspace.events(Self.malformedScript)

        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--events", events])
        #expect(result.status == 65, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        let lines = result.output.split(separator: "\n").map(String.init)
        let errorLines = lines.filter { $0.hasPrefix("events line ") }
        try #require(errorLines.count == Self.malformedErrors.count, "\(result.output)")
        for (line, (number, words)) in zip(errorLines, Self.malformedErrors) {
            #expect(line.hasPrefix("events line \(number): ") && line.hasSuffix("; skipped"), "\(line)")
            for word in words { #expect(line.contains(word), "\(line) lacks \(word)") }
        }
        #expect(CLI.eventNames(result.output) == ["will-finish-launching", "did-finish-launching", "memory-warning",
                                                  "did-become-active", "will-terminate"], "\(result.output)")
        // The good line after the bad ones is still delivered, after the last error.
        let lastError = try #require(lines.lastIndex { $0.hasPrefix("events line ") })
        let active = try #require(lines.firstIndex { $0.hasPrefix("did-become-active → delivered") }, "\(result.output)")
        #expect(lastError < active)
    }

    /// A line longer than the longest kept (a file without newlines, say) is read past, not kept,
    /// and skipped like a malformed one; the lines around it are delivered, also the last one
    /// without a newline.
    @Test func anOverlongLineIsSkippedWithoutBeingKept() throws {
        let workspace = try Workspace("run-overlong")
        defer { workspace.remove() }
        try workspace.plugin("app.so", Self.app)
        let events = workspace.root.file("events.jsonl")
        var text = Array(#"{"event":"memory-warning"}"#.utf8) + [UInt8(ascii: "\n")]
        text += Array(#"{"event":"open-url","url":"myapp://"#.utf8)
        text += [UInt8](repeating: UInt8(ascii: "a"), count: EventLineReader.longestLine + 100_000)
        text += Array(#""}"#.utf8) + [UInt8(ascii: "\n")] + Array(#"{"event":"did-become-active"}"#.utf8)
        try Data(text).write(to: URL(fileURLWithPath: events))

        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--events", events])
        #expect(result.status == 65, "exit \(result.status)\n\(result.errorOutput)")
        let errors = result.output.split(separator: "\n").filter { $0.hasPrefix("events line ") }
        #expect(errors == ["events line 2: longer than 64 MiB, the longest line read; skipped"], "\(errors)")
        #expect(CLI.eventNames(result.output) == ["will-finish-launching", "did-finish-launching", "memory-warning",
                                                  "did-become-active", "will-terminate"], "\(result.output.prefix(2000))")
    }

    /// A line that is not UTF-8 is an input error naming the first byte that is not, as it is in
    /// the input (it is not repaired into U+FFFD and delivered); the last line, without a newline,
    /// too.
    @Test func aLineThatIsNotUTF8IsSkippedNamingItsByte() throws {
        let workspace = try Workspace("run-not-utf8")
        defer { workspace.remove() }
        try workspace.plugin("app.so", Self.app)
        let events = workspace.root.file("events.jsonl")
        var text: [UInt8] = [0x80] + Array("abc\n".utf8)
        text += Array(#"{"event":"open-url","url":"myapp://"#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8) + [UInt8(ascii: "\n")]
        text += Array(#"{"event":"did-become-active"}"#.utf8) + [UInt8(ascii: "\n"), 0xFF]
        try Data(text).write(to: URL(fileURLWithPath: events))

        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--events", events])
        #expect(result.status == 65, "exit \(result.status)\n\(result.errorOutput)")
        let errors = result.output.split(separator: "\n").filter { $0.hasPrefix("events line ") }
        #expect(errors == ["events line 1: not UTF-8: byte 0x80 at byte 1; skipped",
                           "events line 2: not UTF-8: byte 0xC3 at byte 36; skipped",
                           "events line 4: not UTF-8: byte 0xFF at byte 1; skipped"], "\(errors)")
        #expect(CLI.eventNames(result.output) == ["will-finish-launching", "did-finish-launching", "did-become-active", "will-terminate"],
                "\(result.output)")
    }

    @Test func malformedLinesAsJSONFromStandardInput() throws {
        let workspace = try Workspace("run-malformed-json")
        defer { workspace.remove() }
        try workspace.plugin("app.so", Self.app)

        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--events", "-", "--json"],
                                 input: Self.malformedScript.joined(separator: "\n"))  // no final newline
        #expect(result.status == 65, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        let lines = try #require(CLI.runLines(result.output), "a line is not a run line:\n\(result.output)")
        let errors = lines.compactMap(\.inputError)
        try #require(errors.count == Self.malformedErrors.count, "\(result.output)")
        for (error, (number, words)) in zip(errors, Self.malformedErrors) {
            #expect(error.line == number, "\(error)")
            for word in words { #expect(error.message.contains(word), "\(error) lacks \(word)") }
        }
        #expect(lines.eventNames == ["will-finish-launching", "did-finish-launching", "memory-warning", "did-become-active",
                                     "will-terminate"],
                "\(result.output)")
        #expect(lines.last?.exitCode == 65)
    }

    @Test func willTerminateInTheScriptEndsIt() throws {
        let workspace = try Workspace("run-terminate")
        defer { workspace.remove() }
        try workspace.plugin("app.so", Self.app)
        let events = try workspace.events([#"{"event":"memory-warning"}"#, #"{"event":"will-terminate"}"#,
                                           #"{"event":"did-become-active"}"#])
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--events", events])
        #expect(result.status == 0, "exit \(result.status)\n\(result.output)")
        #expect(CLI.eventNames(result.output) == ["will-finish-launching", "did-finish-launching", "memory-warning", "will-terminate"],
                "\(result.output)")
    }

    @Test func openURLFlagsComeBeforeTheEvents() throws {
        let workspace = try Workspace("run-urls")
        defer { workspace.remove() }
        try workspace.plugin("app.so", Self.app)
        let events = try workspace.events([#"{"event":"open-url","url":"myapp://from-script"}"#])
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--open-url", "myapp://one", "--open-url", "myapp://two",
                                  "--events", events, "--launch-options", #"{"k":1}"#])
        #expect(result.status == 0, "exit \(result.status)\n\(result.output)")
        #expect(CLI.pluginLogs(result.output).filter { $0.contains("open-url") }
                    == ["\(Self.appID): open-url myapp://one", "\(Self.appID): open-url myapp://two",
                        "\(Self.appID): open-url myapp://from-script"], "\(result.output)")
    }
}
