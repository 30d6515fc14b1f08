import Foundation
import Glibc
import Plugboard
@testable import plugboard
import Testing

/// The documented exit codes, each produced for real.
@Suite struct EndToEndExitCodeTests {
    /// A usage error: the arguments after `plugboard`, and words its message must contain.
    struct UsageCase: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let words: [String]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let usageCases: [UsageCase] = [
        UsageCase(arguments: ["run", "--bogus"], words: ["Unknown option", "--bogus"]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--events", "PLUGINS/missing.jsonl"],
                  words: ["cannot read the events file", "missing.jsonl", "No such file or directory"]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--events", "PLUGINS"],
                  words: ["the events file", "is a directory"]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--launch-options", "[1]"],
                  words: ["--launch-options must be a JSON object", "[1]"]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--launch-options", "{"], words: ["--launch-options"]),
        // A value the message repeats stays on its line, its control characters visible.
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--launch-options", "x\ny\u{1B}[31m"],
                  words: [#"--launch-options must be a JSON object, got 'x\ny\x1b[31m': line 1, column 1"#]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--call-timeout", "1\n2"],
                  words: [#"The value '1\n2' is invalid for '--call-timeout <seconds>'"#]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--call-timeout=1\n2"],
                  words: [#"The value '1\n2' is invalid for '--call-timeout <seconds>'"#]),
        // A value that is only a line break: the message keeps its own lines.
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--call-timeout=\n"],
                  words: [#"Error: The value '\n' is invalid"#, "\nHelp:  --call-timeout", "\nUsage: plugboard run"]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--fo\no=1"], words: [#"Unknown option '--fo\no'"# + "\nUsage: "]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--events", "PLUGINS/new\nline"],
                  words: [#"cannot read the events file '"#, #"/new\nline': "#]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--launch-options", #"{"k":1,"k":2}"#],
                  words: ["--launch-options must be a JSON object", "line 1, column 8: the key \"k\" appears twice in one object"]),
        UsageCase(arguments: ["run", "--plugin-dir", ""], words: ["--plugin-dir needs a directory path"]),
        // A picture's folder is checked before the run, not when the picture is written at its end.
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--trace-file", "PLUGINS/missing/t.json"],
                  words: ["--trace-file '", "/missing/t.json': the folder '", "/missing' does not exist or is not a folder"]),
        // A picture never replaces a file the run reads, lands among the plugins, or replaces the other picture.
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--events", "PLUGINS/app.so", "--trace-file", "PLUGINS/../plugins/app.so"],
                  words: ["--trace-file '", "app.so' is the events file; the picture would replace it"]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--svg", "PLUGINS/launch.svg"],
                  words: ["--svg '", "launch.svg' is in the plugin folder '", "write it elsewhere"]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--trace-file", "PLUGINS/../t.json", "--svg", "PLUGINS/.././t.json"],
                  words: ["--trace-file and --svg name the same file"]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--trace-file", "PLUGINS"], words: ["is a folder; it takes a file's path"]),
        // A negative number is a value to refuse, not an unknown option; one too small to tell from
        // 0 does not turn the timeout off.
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--call-timeout", "-1"],
                  words: ["--call-timeout must be 0 (off) or from 0.001 to 86400 seconds, got -1"]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--call-timeout", "1e-400"],
                  words: ["'1e-400' is too small to tell from 0"]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--call-timeout", "0.0001"], words: ["got 0.0001"]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--restart", "-1"], words: ["--restart must be a count from 0 to 1000, got -1"]),
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--isolation", "none", "--restart", "2"],
                  words: ["with --isolation none there is no worker to restart"]),
        UsageCase(arguments: ["validate", "PLUGINS/app.so", "--include", "loads", "--exclude", "loads"],
                  words: ["--include and --exclude leave no check to run"]),
        // A container that cannot be one is refused before any plugin runs.
        UsageCase(arguments: ["run", "--plugin-dir", "PLUGINS", "--container", "PLUGINS/app.so"], words: ["the container", "app.so' is not a directory"]),
        UsageCase(arguments: ["state", "ls", "--container", "/" + String(repeating: "c", count: 3000)],
                  words: ["the container path is 3001 bytes long; the longest taken is 2048"]),
        UsageCase(arguments: ["list", "--bogus"], words: ["Unknown option", "--bogus"]),
        UsageCase(arguments: ["inspect"], words: ["Missing expected argument"]),
        UsageCase(arguments: ["frobnicate"], words: ["there is no command 'frobnicate'; the commands are run, call, list"]),
        UsageCase(arguments: ["help", "frobnicate"], words: ["'plugboard' has no command 'frobnicate'; its commands are run, call, list"]),
        UsageCase(arguments: ["help", "state", "bogus"], words: ["'plugboard state' has no command 'bogus'; its commands are ls"]),
        UsageCase(arguments: ["help", "run", "bogus"], words: ["'plugboard run' has no commands, so no 'bogus'"]),
    ]

    @Test(arguments: usageCases)
    func usageErrorsExit64(_ usage: UsageCase) throws {
        let workspace = try Workspace("usage")
        defer { workspace.remove() }
        try workspace.plugin("app.so", EndToEndRunTests.app)
        let arguments = usage.arguments.map { $0.replacingOccurrences(of: "PLUGINS", with: workspace.plugins) }
        let result = try CLI.run(arguments)
        #expect(result.status == 64, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        for word in usage.words {
            #expect(result.errorOutput.contains(word), "stderr lacks \(String(reflecting: word)):\n\(result.errorOutput)")
        }
        // Nothing was run: no plugin was called.
        #expect(!result.output.contains("will-finish-launching"), "\(result.output)")
    }

    /// An argument that is not UTF-8 is a usage error naming it, before anything runs: repaired
    /// with U+FFFD, it would name another file, or change a value.
    @Test func anArgumentThatIsNotUTF8IsAUsageError() throws {
        let workspace = try Workspace("usage-utf8")
        defer { workspace.remove() }
        let result = try CLI.run(afterShell: #"set -- files write "$(printf 'Documents/\377.txt')" --text x --container "$1""#,
                                 [workspace.root.file("box")])
        #expect(result.status == 64, "exit \(result.status)\n\(result.errorOutput)")
        #expect(result.errorOutput.contains("argument 3, 'Documents/\u{FFFD}.txt' (shown with U+FFFD), is not UTF-8"), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: workspace.root.file("box")))
    }

    /// An error that repeats a value given with an escape sequence writes it escaped: the terminal
    /// never gets the raw control character (here, one that would turn the text red).
    @Test func anErrorWritesTheValuesItRepeatsEscaped() throws {
        for (arguments, shown) in [(["run", "--events", "/nonexistent/\u{1B}[31mred"], "\\x1b[31mred"),
                                   (["run", "--policy", "/nonexistent/\u{1B}]0;title\u{07}"], "\\x1b]0;title\\x07")] {
            let result = try CLI.run(arguments)
            #expect(result.status == 64, "exit \(result.status)\n\(result.errorOutput)")
            #expect(result.errorOutput.contains(shown), "\(result.errorOutput)")
            #expect(!result.errorOutput.contains("\u{1B}") && !result.errorOutput.contains("\u{07}"), "\(result.errorOutput)")
        }
    }

    /// An events file that exists but cannot be read is a usage error too; as root every
    /// file is readable, so the binary runs as nobody.
    @Test(.enabled(if: PrivilegeDrop.unavailableReason == nil, EndToEndLoadingTests.nobodyReason))
    func unreadableEventsFileExits64() throws {
        let workspace = try Workspace("events-perm")
        defer { workspace.remove() }
        #expect(chmod(workspace.root.path, 0o755) == 0 && chmod(workspace.plugins, 0o755) == 0)
        try workspace.plugin("app.so", EndToEndRunTests.app)
        let events = try workspace.events([#"{"event":"memory-warning"}"#])
        #expect(chmod(events, 0) == 0)
        let (tool, arguments) = PrivilegeDrop.asNobody(try CLI.binary(), ["run", "--plugin-dir", workspace.plugins, "--events", events])
        let result = try run(tool, arguments)
        #expect(result.status == 64, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        #expect(result.errorOutput.contains("cannot read the events file '\(events)': Permission denied"), "\(result.errorOutput)")
        #expect(!result.output.contains("will-finish-launching"), "\(result.output)")
    }

    @Test func vetoedLaunchExits2AfterWillTerminate() throws {
        let workspace = try Workspace("veto")
        defer { workspace.remove() }
        try workspace.plugin("a_veto.so", ["FIX_ID=\"com.e2e.veto\"", "FIX_LAUNCH=0", "FIX_TERMINATE", "FIX_BROADCASTS"])
        try workspace.plugin("b_yes.so", ["FIX_ID=\"com.e2e.yes\"", "FIX_LAUNCH=1", "FIX_TERMINATE", "FIX_BROADCASTS"])
        let events = try workspace.events([#"{"event":"memory-warning"}"#])

        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--events", events, "--open-url", "myapp://x"])
        #expect(result.status == 2, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        #expect(CLI.eventNames(result.output) == ["will-finish-launching", "will-terminate"], "\(result.output)")
        #expect(result.output.contains("will-finish-launching → false (vetoed by com.e2e.veto)  [3 call(s)"), "\(result.output)")
        let logs = CLI.pluginLogs(result.output).filter { $0.hasPrefix("com.e2e.") }
        // Both were asked (a veto does not skip the others); both hear will-terminate; nothing else is sent.
        #expect(logs.sorted() == ["com.e2e.veto: will-finish-launching", "com.e2e.veto: will-terminate",
                                  "com.e2e.yes: will-finish-launching", "com.e2e.yes: will-terminate"], "\(result.output)")
        #expect(!result.output.contains("did-finish-launching"), "\(result.output)")

        let json = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--json"])
        #expect(json.status == 2)
        let objects = try #require(CLI.runLines(json.output), "\(json.output)")
        #expect(objects.eventNames
                    == ["will-finish-launching", "will-terminate"], "\(json.output)")
        #expect(objects.last?.exitCode == 2, "\(json.output)")
    }

    @Test func vetoedLaunchSendsNoURL() throws {
        let workspace = try Workspace("veto-url")
        defer { workspace.remove() }
        try workspace.plugin("veto.so", ["FIX_ID=\"com.e2e.veto\"", "FIX_LAUNCH=0", "FIX_OPEN_URL=1", "FIX_TERMINATE"])
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--open-url", "myapp://x"])
        #expect(result.status == 2, "exit \(result.status)\n\(result.output)")
        #expect(CLI.eventNames(result.output) == ["will-finish-launching", "will-terminate"], "\(result.output)")
        #expect(CLI.pluginLogs(result.output).filter { $0.hasPrefix("com.e2e.veto:") }
                    == ["com.e2e.veto: will-finish-launching", "com.e2e.veto: will-terminate"], "\(result.output)")
    }

    @Test func noLoadablePluginExits3() throws {
        let workspace = try Workspace("none")
        defer { workspace.remove() }
        let empty = workspace.root.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        try "text\n".write(toFile: workspace.plugins + "/bad.so", atomically: false, encoding: .utf8)
        try workspace.plugin("init.so", ["FIX_ID=\"com.bad.init\"", "FIX_INIT_FAILS", "FIX_LAUNCH=1", "FIX_TERMINATE"])

        for directories in [[empty], [workspace.plugins], [workspace.root.file("missing")], [empty, workspace.plugins]] {
            let arguments = ["run"] + directories.flatMap { ["--plugin-dir", $0] }
            let result = try CLI.run(arguments)
            #expect(result.status == 3, "\(arguments): exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
            #expect(result.output.contains("plugboard: no plugin could be loaded from " + directories.joined(separator: ", ")),
                    "\(result.output)")
            #expect(CLI.eventNames(result.output).isEmpty, "no event may be sent:\n\(result.output)")
        }
        let json = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--json"])
        #expect(json.status == 3)
        let objects = try #require(CLI.runLines(json.output), "\(json.output)")
        #expect(objects.last?.exitCode == 3, "\(json.output)")
        #expect(objects.contains { $0.note?.contains("no plugin could be loaded") == true },
                "\(json.output)")
    }

    @Test func listAndInspectExit1AndRunExits4WhenALibraryFailed() throws {
        let workspace = try Workspace("exit1")
        defer { workspace.remove() }
        let good = try workspace.plugin("good.so", EndToEndRunTests.app)
        let goodOnly = try CLI.run(["list", "--plugin-dir", workspace.plugins])
        #expect(goodOnly.status == 0, "\(goodOnly.output)")
        #expect(goodOnly.output.contains("1 file(s): 1 loaded, 0 failed, 0 skipped; 1 plugin(s)"), "\(goodOnly.output)")
        #expect(try CLI.run(["inspect", good]).status == 0)

        let bad = try workspace.plugin("major.so", ["FIX_ID=\"com.bad.major\"", "FIX_ABI_MAJOR=2", "FIX_TERMINATE"])
        for arguments in [["list", "--plugin-dir", workspace.plugins], ["list", "--plugin-dir", workspace.plugins, "--json"],
                          ["inspect", bad], ["inspect", bad, "--json"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 1, "\(arguments): exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        }
        let list = try CLI.run(["list", "--plugin-dir", workspace.plugins])
        #expect(list.output.contains("FAILED   \(bad): version: ABI major version mismatch: field abi_major, plugin 2, host 1"),
                "\(list.output)")
        // run runs the good plugin to the end, then exits 4: a library it was asked to load failed.
        let run = try CLI.run(["run", "--plugin-dir", workspace.plugins])
        #expect(run.status == 4, "exit \(run.status)\n\(run.output)\n\(run.errorOutput)")
        #expect(CLI.eventNames(run.output) == ["will-finish-launching", "did-finish-launching", "will-terminate"], "\(run.output)")
        let json = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--json"])
        let objects = try #require(CLI.runLines(json.output), "a line is not a run line:\n\(json.output)")
        #expect(json.status == 4 && objects.last?.exitCode == 4, "\(json.output)")
    }

    /// A skipped events line makes a run that went to its end exit 65, so a script with a typo fails;
    /// a library that failed to load (4) and a worker that failed (5) say more, and take precedence.
    @Test func aSkippedEventsLineExits65UnlessALibraryOrWorkerFailed() throws {
        let workspace = try Workspace("exit65")
        defer { workspace.remove() }
        try workspace.plugin("good.so", EndToEndRunTests.app)
        let events = try workspace.events([#"{"event":"memory-warnin"}"#, #"{"event":"did-become-active"}"#])
        let arguments = ["run", "--plugin-dir", workspace.plugins, "--events", events]
        let skipped = try CLI.run(arguments)
        #expect(skipped.status == 65, "exit \(skipped.status)\n\(skipped.output)\n\(skipped.errorOutput)")
        #expect(CLI.eventNames(skipped.output) == ["will-finish-launching", "did-finish-launching", "did-become-active",
                                                   "will-terminate"], "\(skipped.output)")
        let json = try CLI.run(arguments + ["--json"])
        let objects = try #require(CLI.runLines(json.output), "a line is not a run line:\n\(json.output)")
        #expect(json.status == 65 && objects.last?.exitCode == 65, "\(json.output)")

        let hostile = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["SEGV_AT=AT_TERMINATE"])
        let crashed = try CLI.run(arguments)
        #expect(crashed.status == 5, "exit \(crashed.status)\n\(crashed.output)\n\(crashed.errorOutput)")

        try FileManager.default.removeItem(atPath: hostile)
        try workspace.plugin("major.so", ["FIX_ID=\"com.bad.major\"", "FIX_ABI_MAJOR=2", "FIX_TERMINATE"])
        let failedLoad = try CLI.run(arguments)
        #expect(failedLoad.status == 4, "exit \(failedLoad.status)\n\(failedLoad.output)\n\(failedLoad.errorOutput)")
    }

    /// What `files`, `state`, `new` and the help print is never lost silently: a standard output
    /// that is full, or closed, ends the command with exit code 74 and one line naming the cause.
    @Test func aFullOrClosedStandardOutputExits74ForEveryCommandThatPrints() throws {
        let workspace = try Workspace("full-output")
        defer { workspace.remove() }
        let container = workspace.root.file("box")
        #expect(try CLI.run(["files", "write", "Documents/a.txt", "--text", "hi", "--container", container]).status == 0)
        let cases: [(arguments: [String], command: String)] = [
            (["files", "ls", "--container", container], "plugboard files"),
            (["files", "ls", "Documents", "--json", "--container", container], "plugboard files"),
            (["files", "stat", "Documents/a.txt", "--container", container], "plugboard files"),
            (["files", "cat", "Documents/a.txt", "--container", container], "plugboard files"),
            (["files", "ext", "Documents/b.txt", "md", "--overwrite", "--container", container], "plugboard files"),
            (["state", "ls", "--container", container], "plugboard state"),
            (["new", "probe", "--lang", "c", "--dir", workspace.root.file("new")], "plugboard new"),
            (["--help"], "plugboard"),
        ]
        for (arguments, command) in cases {
            for (redirection, cause) in [("exec >/dev/full", "No space left on device"), ("exec >&-", "Bad file descriptor")] {
                // Each run starts from the same place: no project yet, a b.txt to rename.
                try? FileManager.default.removeItem(atPath: workspace.root.file("new"))
                #expect(try CLI.run(["files", "write", "Documents/b.txt", "--text", "b", "--overwrite", "--container", container]).status == 0)
                let result = try CLI.run(afterShell: redirection, arguments)
                #expect(result.status == 74, "\(arguments) \(redirection): exit \(result.status)\n\(result.errorOutput)")
                #expect(result.errorOutput == "\(command): cannot write the report to standard output: \(cause)\n", "\(arguments) \(redirection)")
            }
        }
    }

    @Test func unreadableEventsInputExits1AfterWillTerminate() throws {
        let workspace = try Workspace("events-dir")
        defer { workspace.remove() }
        try workspace.plugin("app.so", EndToEndRunTests.app)
        // Standard input open on a directory: it cannot be checked ahead, and cannot be read as lines.
        // (A directory named as the events file is refused before anything runs: a usage error.)
        let result = try CLI.run(afterShell: "exec < '\(workspace.root.path)'", ["run", "--plugin-dir", workspace.plugins, "--events", "-"])
        #expect(result.status == 1, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        #expect(result.output.contains("plugboard: cannot read events"), "\(result.output)")
        #expect(CLI.eventNames(result.output) == ["will-finish-launching", "did-finish-launching", "will-terminate"], "\(result.output)")
    }
}

/// SIGINT and SIGTERM while `run --events -` waits on standard input.
@Suite struct EndToEndSignalTests {
    struct SignalCase: Sendable, CustomTestStringConvertible {
        let signal: Int32
        let name: String
        let json: Bool
        var blocked = false
        var testDescription: String { name + (json ? " --json" : "") + (blocked ? " (started blocked)" : "") }
    }

    @Test(arguments: [SignalCase(signal: SIGINT, name: "SIGINT", json: false), SignalCase(signal: SIGTERM, name: "SIGTERM", json: false),
                      SignalCase(signal: SIGINT, name: "SIGINT", json: true), SignalCase(signal: SIGTERM, name: "SIGTERM", json: true)])
    func signalWhileWaitingSendsWillTerminate(_ signal: SignalCase) throws {
        try check(signal)
    }

    /// A child inherits its parent's signal mask: Foundation's `Process` started from a
    /// test, Dispatch or Swift-concurrency thread hands over a mask that blocks SIGINT and
    /// SIGTERM. `plugboard run` promises to answer them, so it must unblock them itself.
    @Test(arguments: [SignalCase(signal: SIGINT, name: "SIGINT", json: false, blocked: true),
                      SignalCase(signal: SIGTERM, name: "SIGTERM", json: false, blocked: true)])
    func signalIsAnsweredWhenStartedWithItBlocked(_ signal: SignalCase) throws {
        try check(signal)
    }

    /// `--events FIFO` with no writer yet: the run waits for one, and a signal still ends it at once,
    /// will-terminate delivered (opening the FIFO does not block).
    @Test func aSignalWhileAFIFOHasNoWriterSendsWillTerminate() throws {
        let workspace = try Workspace("signal-fifo")
        defer { workspace.remove() }
        let id = "com.e2e.signal"
        try workspace.plugin("app.so", ["FIX_ID=\"\(id)\"", "FIX_LAUNCH=1", "FIX_BROADCASTS", "FIX_TERMINATE"])
        let fifo = workspace.root.file("events")
        try #require(mkfifo(fifo, 0o600) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        let process = try LiveProcess(try CLI.binary(), ["run", "--plugin-dir", workspace.plugins, "--events", fifo])
        defer { process.stop() }
        try #require(process.waitForOutput(containing: "did-finish-launching → true"), "never launched:\n\(process.output)")
        #expect(kill(process.pid, SIGTERM) == 0)
        let exit = process.waitForExit(timeout: .seconds(5))
        #expect(!exit.timedOut, "still running 5 s after SIGTERM:\n\(exit.output)")
        #expect(exit.ending == .exit(128 + SIGTERM), "ended with \(exit.ending)\n\(exit.output)")
        #expect(CLI.pluginLogs(exit.output).filter { $0.hasPrefix(id) }.last == "\(id): will-terminate", "\(exit.output)")
    }

    private func check(_ signal: SignalCase) throws {
        let workspace = try Workspace("signal")
        defer { workspace.remove() }
        let id = "com.e2e.signal"
        try workspace.plugin("app.so", ["FIX_ID=\"\(id)\"", "FIX_LAUNCH=1", "FIX_BROADCASTS", "FIX_TERMINATE"])

        let process = try LiveProcess(try CLI.binary(),
                                      ["run", "--plugin-dir", workspace.plugins, "--events", "-"] + (signal.json ? ["--json"] : []),
                                      blockedSignals: signal.blocked ? [SIGINT, SIGTERM] : [])
        defer { process.stop() }
        let launched = signal.json ? #""event":"did-finish-launching""# : "did-finish-launching → true"
        try #require(process.waitForOutput(containing: launched), "never launched:\n\(process.output)")
        // It reads standard input live: an event sent now is delivered while the input stays open.
        try process.send(#"{"event":"memory-warning"}"# + "\n")
        let warned = signal.json ? #""event":"memory-warning""# : "memory-warning → delivered"
        try #require(process.waitForOutput(containing: warned), "the event was not delivered:\n\(process.output)")
        #expect(!process.output.contains("will-terminate"), "terminated before the signal:\n\(process.output)")

        #expect(kill(process.pid, signal.signal) == 0)
        let exit = process.waitForExit(timeout: .seconds(5))
        #expect(!exit.timedOut, "still running 5 s after \(signal.name):\n\(exit.output)")
        #expect(exit.ending == .exit(128 + signal.signal), "ended with \(exit.ending)\n\(exit.output)")

        if signal.json {
            let objects = try #require(CLI.runLines(exit.output), "a line is not a run line:\n\(exit.output)")
            #expect(objects.eventNames
                        == ["will-finish-launching", "did-finish-launching", "memory-warning", "will-terminate"], "\(exit.output)")
            #expect(objects.contains { $0.log?.plugin == id && $0.log?.message == "will-terminate" },
                    "\(exit.output)")
            #expect(objects.contains { $0.note == "received \(signal.name): terminating" },
                    "\(exit.output)")
            #expect(objects.last?.exitCode == Int(128 + signal.signal), "\(exit.output)")
        } else {
            #expect(exit.output.contains("plugboard: received \(signal.name): terminating\n"), "\(exit.output)")
            #expect(CLI.pluginLogs(exit.output).filter { $0.hasPrefix(id) }
                        == ["will-finish-launching", "did-finish-launching", "memory-warning", "will-terminate"].map { "\(id): \($0)" },
                    "\(exit.output)")
            #expect(CLI.eventNames(exit.output).last == "will-terminate", "\(exit.output)")
        }
    }
}
