import Foundation
import Glibc
import Plugboard
@testable import plugboard
import Testing

/// A plugin cannot take SIGINT and SIGTERM away from `plugboard run`, nor move its
/// relative paths with `chdir`.
@Suite struct HostileSignalTests {
    static let goodID = "com.e2e.signal"
    static let good = ["FIX_ID=\"\(goodID)\"", "FIX_LAUNCH=1", "FIX_BROADCASTS", "FIX_TERMINATE"]

    @Test(arguments: ["IGNORE_SIGNALS_AT=AT_INIT", "BLOCK_SIGNALS_AT=AT_INIT", "HANDLE_SIGNALS_AT=AT_INIT",
                      "IGNORE_SIGNALS_AT=AT_WILL_FINISH", "HANDLE_SIGNALS_AT=AT_OPEN_URL"])
    func sigtermStillSendsWillTerminate(_ definition: String) throws {
        let workspace = try Workspace("hostile-signals")
        defer { workspace.remove() }
        try workspace.plugin("app.so", Self.good)
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, [definition])

        let process = try LiveProcess(try CLI.binary(), ["run", "--isolation", "none", "--plugin-dir", workspace.plugins, "--open-url", "myapp://x",
                                                         "--container", workspace.root.file("box"), "--events", "-"])
        defer { process.stop() }
        try #require(process.waitForOutput(containing: "open-url myapp://x → "), "never opened the URL:\n\(process.output)")
        try process.send(#"{"event":"memory-warning"}"# + "\n")
        try #require(process.waitForOutput(containing: "memory-warning → delivered"), "no event:\n\(process.output)")

        #expect(kill(process.pid, SIGTERM) == 0)
        let exit = process.waitForExit(timeout: .seconds(20))
        #expect(!exit.timedOut, "still running 20 s after SIGTERM:\n\(exit.output)")
        #expect(exit.ending == .exit(128 + SIGTERM), "ended with \(exit.ending)\n\(exit.output)")
        #expect(exit.output.contains("plugboard: received SIGTERM: terminating\n"), "\(exit.output)")
        let logs = CLI.pluginLogs(exit.output)
        #expect(logs.filter { $0.hasPrefix(Self.goodID) }.last == "\(Self.goodID): will-terminate", "\(exit.output)")
        #expect(logs.contains("com.example.hostile: will-terminate"), "\(exit.output)")
    }

    /// A SIGTERM raised during will-finish-launching, by a plugin that ignored SIGTERM in
    /// `init`, is acted on before the next event though `run` has no URL or events to wait for.
    @Test(arguments: [false, true])
    func aSignalDuringLaunchIsActedOnBeforeTheNextEvent(_ json: Bool) throws {
        let workspace = try Workspace("hostile-raise")
        defer { workspace.remove() }
        try workspace.plugin("app.so", Self.good)
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["IGNORE_SIGNALS_AT=AT_INIT", "RAISE_SIGTERM_AT=AT_WILL_FINISH"])
        let result = try CLI.run(["run", "--isolation", "none", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("box")]
                                     + (json ? ["--json"] : []))
        #expect(result.status == 128 + SIGTERM, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        if json {
            let objects = try #require(CLI.runLines(result.output), "a line is not a run line:\n\(result.output)")
            #expect(objects.eventNames
                        == ["will-finish-launching", "will-terminate"], "\(result.output)")
            #expect(objects.last?.exitCode == Int(128 + SIGTERM), "\(result.output)")
        } else {
            #expect(CLI.eventNames(result.output) == ["will-finish-launching", "will-terminate"], "\(result.output)")
            #expect(CLI.pluginLogs(result.output).filter { $0.hasPrefix(Self.goodID) }
                        == ["will-finish-launching", "will-terminate"].map { "\(Self.goodID): \($0)" }, "\(result.output)")
        }
    }

    /// A callback that never returns keeps the run loop from seeing the first signal;
    /// the second ends the process at once with 128+N and says so in the report.
    @Test(arguments: [SIGTERM, SIGINT])
    func aSecondSignalEndsASpinningRunAtOnce(_ signal: Int32) throws {
        let workspace = try Workspace("hostile-spin")
        defer { workspace.remove() }
        try workspace.plugin("app.so", Self.good)
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["SPIN_AT=AT_OPEN_URL"])

        let process = try LiveProcess(try CLI.binary(), ["run", "--isolation", "none", "--plugin-dir", workspace.plugins, "--open-url", "myapp://x",
                                                         "--container", workspace.root.file("box"), "--json"])
        defer { process.stop() }
        try #require(process.waitForOutput(containing: #""message":"open-url""#), "never reached open-url:\n\(process.output)")
        // Two signals sent back to back may arrive as one: send until the farewell shows.
        let farewell = "again: exiting at once"
        var sent = 0
        repeat {
            #expect(kill(process.pid, signal) == 0)
            sent += 1
        } while !process.waitForOutput(containing: farewell, timeout: .seconds(1)) && sent < 20
        let exit = process.waitForExit(timeout: .seconds(20))
        #expect(!exit.timedOut, "still running 20 s after \(sent) signals:\n\(exit.output)")
        #expect(exit.ending == .exit(128 + signal), "ended with \(exit.ending)\n\(exit.output)")
        let objects = try #require(CLI.runLines(exit.output), "a line is not a run line:\n\(exit.output)")
        #expect(objects.last?.exitCode == Int(128 + signal), "\(exit.output)")
        #expect(objects.dropLast().last?.message?.contains(farewell) == true, "\(exit.output)")
    }

    /// `chdir("/")` in the first library's `init` moves neither the later plugin
    /// directory, nor the events file, nor the container, all given relative.
    @Test(arguments: [false, true])
    func relativePathsSurviveAChdirInInit(_ fromEnvironment: Bool) throws {
        let workspace = try Workspace("hostile-chdir")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["CHDIR_AT=AT_INIT"])
        let later = workspace.root.file("later")
        try FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: false)
        try workspace.plugin("app.so", EndToEndRunTests.app, in: later)
        _ = try workspace.events([#"{"event":"open-url","url":"myapp://from-events"}"#])

        let directories = fromEnvironment ? [] : ["--plugin-dir", "plugins", "--plugin-dir", "later"]
        let result = try CLI.run(afterShell: #"cd "$PLUGBOARD_TEST_DIRECTORY""#,
                                 ["run", "--isolation", "none"] + directories + ["--events", "events.jsonl", "--container", "box"],
                                 environment: ["PLUGBOARD_TEST_DIRECTORY": workspace.root.path]
                                     .merging(fromEnvironment ? ["PLUGBOARD_PLUGIN_PATH": "plugins:later"] : [:]) { $1 })
        #expect(result.status == 0, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        #expect(result.output.contains("2 file(s): 2 loaded, 0 failed"), "\(result.output)")
        #expect(CLI.pluginLogs(result.output).contains("\(EndToEndRunTests.appID): open-url myapp://from-events"), "\(result.output)")
        #expect(FileManager.default.fileExists(atPath: workspace.root.file("box/Documents/Inbox")), "no container in the workspace")
    }
}
