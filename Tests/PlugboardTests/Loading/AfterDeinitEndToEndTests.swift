import Foundation
import Glibc
import Plugboard
@testable import plugboard
import Testing

/// Hostile libraries that call the host after their `deinit` (from an `atexit`
/// handler) or after their `init` returned false (from a thread), through the
/// real binary: no crash, the exit code as documented, one warning per library
/// naming it, and the good plugin beside them runs as usual.
@Suite struct AfterDeinitEndToEndTests {
    /// One library per misuse, plus one that commits all three (reported once), plus a good plugin.
    private static func atexitWorkspace() throws -> (Workspace, [String: String]) {
        let workspace = try Workspace("after-deinit")
        do {
            try workspace.plugin("app.so", EndToEndRunTests.app)
            var libraries: [String: String] = [:]
            for (name, actions) in [("log", ["LOG_AT=AT_ATEXIT"]), ("files", ["FILES_AT=AT_ATEXIT"]),
                                    ("complete", ["COMPLETE_AT=AT_ATEXIT"]),
                                    ("all", ["LOG_AT=AT_ATEXIT", "FILES_AT=AT_ATEXIT", "COMPLETE_AT=AT_ATEXIT"])] {
                libraries[name] = try PluginCompiler.hostile("late_\(name).so", in: workspace.plugins,
                                                             actions + ["HOSTILE_ID=\"com.hostile.late-\(name)\""])
            }
            return (workspace, libraries)
        } catch {
            workspace.remove()
            throw error
        }
    }

    @Test(arguments: [false, true])
    func callsFromAnAtexitHandlerAfterDeinitAreIgnoredAndReportedOnce(json: Bool) throws {
        let (workspace, libraries) = try Self.atexitWorkspace()
        defer { workspace.remove() }
        let container = workspace.root.file("container")
        let events = try workspace.events([#"{"event":"remote-notification","userInfo":{},"deadlineMs":5000}"#])
        let result = try CLI.run(["run", "--isolation", "none", "--plugin-dir", workspace.plugins, "--container", container, "--events", events]
                                 + (json ? ["--json"] : []))
        let everything = "exit \(result.status)\n\(result.output)\n\(result.errorOutput)"
        #expect(result.status == 0, "\(everything)")

        let warnings = result.errorOutput.split(separator: "\n").filter { $0.hasPrefix("plugboard: warning: ") }
        for (name, service) in [("log", "log"), ("files", "a files function"), ("complete", "a fetch completion"), ("all", "log")] {
            let path = try #require(libraries[name])
            #expect(warnings.filter { $0.contains(path + " ") }
                        == ["plugboard: warning: \(path) called \(service) after its deinit; ignored (reported once)"], "\(everything)")
        }
        #expect(warnings.count == 4, "\(everything)")
        #expect(!FileManager.default.fileExists(atPath: container + "/tmp/hostile-files-call.txt"), "a files call after deinit wrote")

        if json {
            let objects = try #require(CLI.runLines(result.output), "a line is not a run line:\n\(everything)")
            #expect(objects.last?.exitCode == 0, "\(everything)")
            let event = objects.events(named: "remote-notification").first
            #expect(event?.decidedBy.map(\.rawValue) == ["com.hostile.late-all", "com.hostile.late-complete"], "\(everything)")
        } else {
            #expect(CLI.eventNames(result.output).last == "will-terminate", "\(everything)")
            #expect(CLI.pluginLogs(result.output).contains("\(EndToEndRunTests.appID): will-terminate"), "\(everything)")
        }
    }

    /// Under valgrind's memcheck, a call after deinit that read freed memory is an error (exit 99).
    /// Only addressability is checked (`--undef-value-errors=no`: the Swift runtime's metadata
    /// initialization trips the undefined-value check), on a stripped copy of the binary
    /// (valgrind 3.19 cannot read Swift 6.3's DWARF 5).
    @Test(.enabled(if: Valgrind.path != nil, "valgrind is not installed"))
    func callsAfterDeinitReadNoFreedMemoryUnderValgrind() throws {
        let (workspace, libraries) = try Self.atexitWorkspace()
        defer { workspace.remove() }
        let binary = workspace.root.file("plugboard-stripped")
        try FileManager.default.copyItem(atPath: try CLI.binary(), toPath: binary)
        let strip = try run("/usr/bin/env", ["strip", binary])
        try #require(strip.status == 0, "strip failed: \(strip.errorOutput)")
        let events = try workspace.events([#"{"event":"remote-notification","userInfo":{},"deadlineMs":60000}"#])
        let result = try run(try #require(Valgrind.path),
                             ["-q", "--undef-value-errors=no", "--error-exitcode=99", binary, "run", "--isolation", "none", "--plugin-dir", workspace.plugins,
                              "--container", workspace.root.file("container"), "--events", events])
        #expect(result.status == 0, "exit \(result.status)\n\(result.errorOutput)")
        #expect(!result.errorOutput.contains("Invalid read") && !result.errorOutput.contains("Invalid write"), "\(result.errorOutput)")
        for path in libraries.values {
            #expect(result.errorOutput.contains("plugboard: warning: \(path) called "), "\(result.errorOutput)")
        }
    }

    @Test func aThreadLoggingAfterInitReturnedFalseIsReportedOnce() throws {
        let workspace = try Workspace("init-false-thread")
        defer { workspace.remove() }
        try workspace.plugin("app.so", EndToEndRunTests.app)
        let hostile = try PluginCompiler.hostile("chatty.so", in: workspace.plugins,
                                                 ["FAIL_AT=AT_INIT", "LOG_THREAD_AT=AT_INIT", "HOSTILE_ID=\"com.hostile.chatty\""])
        let process = try LiveProcess(try CLI.binary(), ["run", "--isolation", "none", "--plugin-dir", workspace.plugins,
                                                         "--container", workspace.root.file("container"), "--events", "-"])
        defer { process.stop() }
        // The host's log line while the load is still listening ("[plugboard] warning: …"), or its
        // line on standard error once it no longer is ("plugboard: warning: …"): the thread decides which.
        let warning = "warning: \(hostile) called log after its init returned false; ignored (reported once)"
        try #require(process.waitForOutput(containing: warning), "no warning:\n\(process.output)")
        try #require(process.waitForOutput(containing: "did-finish-launching → true"), "never launched:\n\(process.output)")
        try process.send(#"{"event":"will-terminate"}"# + "\n")
        let exit = process.waitForExit(timeout: .seconds(20))
        #expect(exit.ending == .exit(4), "ended with \(exit.ending)\n\(exit.output)")
        #expect(exit.output.components(separatedBy: warning).count == 2, "not exactly once:\n\(exit.output)")
        #expect(exit.output.contains("FAILED   \(hostile): init: init returned false"), "\(exit.output)")
        #expect(CLI.eventNames(exit.output) == ["will-finish-launching", "did-finish-launching", "will-terminate"], "\(exit.output)")
    }
}

/// valgrind, when installed.
enum Valgrind {
    static let path: String? = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first(where: FileManager.default.isExecutableFile(atPath:))
}
