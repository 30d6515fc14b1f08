import Foundation
import Glibc
import Plugboard
@testable import plugboard
import Testing

/// `plugboard run --isolation process`: each library in a worker process. A
/// crash, an exit or a hang in plugin code ends only that library's part,
/// reported in one line; the good plugins beside it get every event.
@Suite struct WorkerIsolationTests {
    /// Starts `plugboard run --isolation process` over the workspace's plugins and container with
    /// `arguments`, its processes marked with `mark`.
    private static func start(_ workspace: Workspace, _ arguments: [String], mark: [String: String]) throws -> LiveProcess {
        var environment = TestPaths.hermeticEnvironment
        environment.merge(mark) { $1 }
        return try LiveProcess(CLI.binary(), ["run", "--isolation", "process", "--plugin-dir", workspace.plugins,
                                              "--container", workspace.root.file("container")] + arguments, environment: environment)
    }

    /// Sends SIGTERM to `host` and expects it to exit 143 within 10 s; returns what it printed.
    private static func expectTerminated(_ host: LiveProcess) -> String {
        kill(host.pid, SIGTERM)
        let (ending, output, timedOut) = host.waitForExit(timeout: .seconds(10))
        #expect(!timedOut && ending == .exit(143), "\(output)")
        return output
    }

    /// Runs `plugboard run --isolation process --json` over `workspace` with the URLs given.
    private static func run(_ workspace: Workspace, _ extra: [String] = [], mark: [String: String]) throws -> ProcessResult {
        try CLI.run(["run", "--isolation", "process", "--json", "--plugin-dir", workspace.plugins,
                     "--container", workspace.root.file("container"), "--open-url", "myapp://x"] + extra,
                    environment: mark)
    }

    /// Runs `plugboard run --isolation process --json` over `workspace` with a stand-in for the
    /// worker, compiled from the C `program`; returns what the host printed, and its lines, and
    /// records an issue when a process it started is left.
    private static func run(_ workspace: Workspace, standIn program: String) throws -> (result: ProcessResult, lines: [RunLine]) {
        let source = workspace.root.file("stand-in.c")
        try Data(program.utf8).write(to: URL(fileURLWithPath: source))
        let worker = workspace.root.file("stand-in")
        let compiled = try PlugboardTests.run("/usr/bin/env", ["cc", "-std=c11", source, "-o", worker])
        try #require(compiled.status == 0, "\(compiled.output)\(compiled.errorOutput)")
        let mark = LeftoverProcesses.mark()
        let result = try run(workspace, mark: mark.merging(["PLUGBOARD_WORKER": worker]) { $1 })
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
        return (result, try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)"))
    }

    @Test(arguments: [
        (["SEGV_AT=AT_OPEN_URL"], false, "crashed with SIGSEGV in open_url"),
        (["ABORT_AT=AT_OPEN_URL"], false, "crashed with SIGABRT in open_url"),
        (["THROW_AT=AT_OPEN_URL"], true, "crashed with SIGABRT in open_url"),
        (["EXIT_AT=AT_OPEN_URL"], false, "exited with status 0 in open_url"),
        (["QUICK_EXIT_AT=AT_OPEN_URL"], false, "exited with status 0 in open_url"),
        (["SEGV_AT=AT_WILL_FINISH"], false, "crashed with SIGSEGV in will_finish_launching"),
        (["ABORT_AT=AT_TERMINATE"], false, "crashed with SIGABRT in will_terminate"),
    ])
    func aFailingCallEndsOnlyItsLibrary(definitions: [String], cplusplus: Bool, words: String) throws {
        let workspace = try Workspace("worker-fail")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, definitions, cplusplus: cplusplus)
        let mark = LeftoverProcesses.mark()
        let result = try Self.run(workspace, mark: mark)
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        let sentence = "com.example.hostile \(words) (\(library))"
        #expect(lines.contains { $0.log?.message == sentence }, "\(result.output)")
        #expect(lines.last?.exitCode != nil)
        #expect(result.status == 5, "\(result.output)\n\(result.errorOutput)")
        for id in GoodPlugins.ids {
            #expect(lines.logs(of: id) == ["will-finish-launching", "did-finish-launching", "will-terminate"],
                    "\(id): \(result.output)")
        }
        let failed = lines.events.flatMap(\.failures)
        #expect(failed.map(\.message) == [sentence])
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
    }

    /// Every kind of fault in every place plugin code runs, each reported with its place.
    @Test(arguments: ["SEGV", "ABORT", "THROW", "EXIT", "QUICK_EXIT"], ["AT_ENTRY", "AT_INIT", "AT_REGISTER", "AT_OPEN_URL", "AT_DEINIT"])
    func everyFaultInEveryPlace(fault: String, place: String) throws {
        let workspace = try Workspace("worker-matrix")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["\(fault)_AT=\(place)"],
                                                 cplusplus: fault == "THROW")
        let mark = LeftoverProcesses.mark()
        let result = try Self.run(workspace, mark: mark)
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        let verb = switch fault {
        case "SEGV": "crashed with SIGSEGV"
        case "ABORT", "THROW": "crashed with SIGABRT"
        default: "exited with status 0"
        }
        let messages = lines.compactMap(\.message)
        switch place {
        case "AT_OPEN_URL":
            #expect(messages.contains("com.example.hostile \(verb) in open_url (\(library))"), "\(result.output)")
            #expect(result.status == 5)
        case "AT_DEINIT":
            #expect(messages.contains("\(library) \(verb) in deinit"), "\(result.output)")
            // A worker that fails at shutdown is a worker failure of the run, like one during an event.
            #expect(result.status == 5, "\(result.output)")
            #expect(lines.last?.exitCode == 5, "\(result.output)")
        default:
            let (stage, function) = [("AT_ENTRY", ("entry", "plugboard_entry")), ("AT_INIT", ("init", "init")),
                                     ("AT_REGISTER", ("register", "register_plugins"))].first { $0.0 == place }?.1 ?? ("?", "?")
            let load = try #require(lines.load(of: library))
            #expect(load.failure?.stage.rawValue == stage, "\(load)")
            #expect(load.failure?.message == "\(library) \(verb) in \(function)", "\(load)")
            #expect(result.status == 4)
        }
        for id in GoodPlugins.ids { #expect(lines.logs(of: id).contains("will-terminate"), "\(id)") }
        #expect(lines.last?.exitCode != nil)
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
    }

    /// An `init` that spins past `--call-timeout`: the library fails to load, the run goes on.
    @Test func anInitPastTheTimeoutFailsItsLibrary() throws {
        let workspace = try Workspace("worker-spin-init")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["SPIN_AT=AT_INIT"])
        let mark = LeftoverProcesses.mark()
        let result = try Self.run(workspace, ["--call-timeout", "0.5"], mark: mark)
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        let load = try #require(lines.load(of: library))
        #expect(load.failure?.message == "\(library) did not return from init within 0.5 s; its worker was stopped",
                "\(load)")
        #expect(load.failure?.stage.rawValue == "init")
        #expect(result.status == 4)
        for id in GoodPlugins.ids { #expect(lines.logs(of: id).contains("will-terminate")) }
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
    }

    /// A crash while the worker loads the library: the library fails to load (exit 4) at
    /// the stage the worker announced, the worker's own line on standard error names it
    /// too, the others run.
    @Test(arguments: [("SEGV_AT=AT_INIT", "init"), ("ABORT_AT=AT_REGISTER", "register_plugins"),
                      ("SEGV_AT=AT_ENTRY", "plugboard_entry"), ("QUICK_EXIT_AT=AT_INIT", nil)])
    func aFailureWhileLoadingFailsTheLibrary(definition: String, stage: String?) throws {
        let workspace = try Workspace("worker-load")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, [definition])
        let mark = LeftoverProcesses.mark()
        let result = try Self.run(workspace, mark: mark)
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        let load = try #require(lines.load(of: library))
        #expect(load.status == .failed)
        #expect(["entry", "init", "register"].contains(load.failure?.stage.rawValue ?? ""), "\(load)")
        if let stage {
            #expect(lines.compactMap(\.output).contains { $0.source == library
                && $0.text.contains("crashed with") && $0.text.contains("in \(stage)") },
                    "\(result.output)")
        }
        #expect(result.status == 4, "\(result.output)")
        for id in GoodPlugins.ids { #expect(lines.logs(of: id).contains("will-terminate")) }
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
    }

    /// A callback that spins past `--call-timeout`: its worker is stopped, the run goes on.
    @Test func aCallPastTheTimeoutStopsItsWorker() throws {
        let workspace = try Workspace("worker-spin")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["SPIN_AT=AT_OPEN_URL"])
        let mark = LeftoverProcesses.mark()
        let result = try Self.run(workspace, ["--call-timeout", "0.5"], mark: mark)
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        let sentence = "com.example.hostile did not return from open_url within 0.5 s (\(library)); its worker was stopped"
        #expect(lines.contains { $0.message == sentence }, "\(result.output)")
        // The host's line about it names the plugin, as in process.
        #expect(lines.compactMap(\.log).contains { $0.message == sentence && $0.source == "plugboard" && $0.plugin == "com.example.hostile" },
                "\(result.output)")
        #expect(result.status == 5)
        for id in GoodPlugins.ids { #expect(lines.logs(of: id).contains("will-terminate")) }
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
    }

    /// What a plugin prints or closes in its worker never reaches the report: `--json` stays
    /// valid line by line, and the printed lines come as `output` lines of the library.
    @Test func printsBecomeOutputLines() throws {
        let workspace = try Workspace("worker-print")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins,
                                                 ["PRINT_AT=AT_OPEN_URL", "CLOSE_STDIO_AT=AT_TERMINATE"])
        let mark = LeftoverProcesses.mark()
        let result = try Self.run(workspace, mark: mark)
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        let printed = lines.compactMap(\.output).filter { $0.source == library }
        #expect(printed.contains { $0.stream == .stdout && $0.text == "raw garbage on fd 1" },
                "\(result.output)")
        #expect(lines.filter { $0.exitCode != nil }.count == 1)
        #expect(result.status == 0)
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
    }

    /// Log lines from a plugin's own thread and a completion answered later from another
    /// thread cross the worker's channel as they would in process.
    @Test func hostServicesFromPluginThreads() throws {
        let workspace = try Workspace("worker-threads")
        defer { workspace.remove() }
        try PluginCompiler.lenientFixture("libfetch.so", in: workspace.plugins,
                                          ["FIX_ID=\"com.example.fetch\"", "FIX_FETCH=PB_FETCH_NEW_DATA", "FIX_FETCH_MODE=3",
                                           "FIX_FETCH_DELAY_MS=1000"])
        try PluginCompiler.hostile("libthread.so", in: workspace.plugins,
                                   ["LOG_THREAD_AT=AT_WILL_FINISH", "FILES_THREAD_AT=AT_WILL_FINISH",
                                    "HOSTILE_ID=\"com.example.threaded\""])
        let events = try workspace.events([#"{"event":"remote-notification","userInfo":{},"deadlineMs":10000}"#])
        let mark = LeftoverProcesses.mark()
        let result = try Self.run(workspace, ["--events", events], mark: mark)
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        let notification = try #require(lines.events.first { $0.event == .remoteNotification })
        #expect(notification.answer == .fetch(.newData), "\(notification)")
        #expect(lines.logs(of: "com.example.threaded").contains("hostile message"))
        #expect(lines.logs(of: "com.example.threaded").contains("files from a thread: 0 threaded"), "\(result.output)")
        #expect((try? String(contentsOfFile: workspace.root.file("container/Documents/from-thread.txt"), encoding: .utf8))
            == "threaded")
        #expect(result.status == 0, "\(result.output)")
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
    }

    /// SIGTERM while a plugin spins in its worker: the host stops waiting, stops that
    /// worker, sends will-terminate to the others and exits 143 within seconds.
    @Test func aSignalEndsTheRunWhileAPluginSpins() throws {
        let workspace = try Workspace("worker-spin-signal")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["SPIN_AT=AT_OPEN_URL"])
        let mark = LeftoverProcesses.mark()
        let host = try Self.start(workspace, ["--open-url", "myapp://x", "--call-timeout", "120"], mark: mark)
        defer { host.stop() }
        #expect(host.waitForOutput(containing: "[com.example.hostile] info: open-url"), "\(host.output)")
        let output = Self.expectTerminated(host)
        #expect(output.contains("com.example.hostile was still in open_url"), "\(output)")
        for id in GoodPlugins.ids { #expect(output.contains("[\(id)] info: will-terminate"), "\(output)") }
        #expect(LeftoverProcesses.noneLeft(mark, host: host.pid))
    }

    /// SIGTERM while a library's `init` spins in its worker at start-up: the host stops waiting
    /// for the load and that worker, loads no library after it, and exits 143 within seconds, not
    /// after the call timeout. The interrupted library is not remembered as crashed.
    @Test func aSignalEndsTheRunWhileALibraryLoads() throws {
        let workspace = try Workspace("worker-load-signal")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("liba.so", in: workspace.plugins, ["PRINT_AT=AT_INIT", "SPIN_AT=AT_INIT"])
        let after = try PluginCompiler.hostile("libb.so", in: workspace.plugins, [#"HOSTILE_ID="com.example.after""#])
        let mark = LeftoverProcesses.mark()
        let host = try Self.start(workspace, ["--call-timeout", "120"], mark: mark)
        defer { host.stop() }
        // What init prints before it spins: the run handles signals by then.
        #expect(host.waitForOutput(containing: "raw garbage"), "\(host.output)")
        let output = Self.expectTerminated(host)
        #expect(output.contains("\(library) was still in init"), "\(output)")
        #expect(output.contains("\(after): worker: not loaded: the host was asked to stop"), "\(output)")
        #expect(LeftoverProcesses.noneLeft(mark, host: host.pid))

        let again = try Self.run(workspace, ["--call-timeout", "0.5"], mark: mark)
        #expect(again.output.contains("did not return from init within 0.5 s") && !again.output.contains("remembered"),
                "\(again.output)")
    }

    /// `--restart N`: a crashed worker is started again (init and register again) up to
    /// N times, each restart reported; its plugin takes part in the following events. A failure
    /// past the last restart says so.
    @Test func aCrashedWorkerIsRestarted() throws {
        let workspace = try Workspace("worker-restart")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["SEGV_AT=AT_OPEN_URL"])
        let mark = LeftoverProcesses.mark()
        let result = try Self.run(workspace, ["--open-url", "myapp://y", "--open-url", "myapp://z", "--restart", "1"],
                                  mark: mark)
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        let messages = lines.compactMap(\.message)
        #expect(messages.filter { $0.hasPrefix("com.example.hostile crashed with SIGSEGV in open_url") }.count == 2,
                "\(result.output)")
        #expect(messages.contains("restarted the worker of \(library) (restart 1 of 1): com.example.hostile take part again"))
        #expect(messages.contains("the worker of \(library) failed with no restart left (1 of 1 used): its plugins stay withdrawn"),
                "\(result.output)")
        #expect(lines.logs(of: "com.example.hostile").filter { $0 == "open-url" }.count == 2,
                "the first URL and, after the restart, the second; the third finds no plugin")
        #expect(lines.filter { $0.log?.message == "init" }.count == 2)
        #expect(result.status == 5)
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
    }

    /// Workers are started ahead for every candidate file; one whose file is then refused (a FIFO
    /// named `*.so`, a file writable by others) is ended quietly: it held no library, so no `deinit`
    /// failure is reported for it, and nothing waits on the FIFO.
    @Test func aWorkerStartedForARefusedFileEndsQuietly() throws {
        let workspace = try Workspace("worker-refused-prestart")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let writable = try PluginCompiler.hostile("writable.so", in: workspace.plugins, [])
        try #require(chmod(writable, 0o666) == 0)
        try #require(mkfifo(workspace.plugins + "/fifo.so", 0o644) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        let mark = LeftoverProcesses.mark()
        let result = try Self.run(workspace, ["--call-timeout", "30"], mark: mark)
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        #expect(result.status == 4, "\(result.output)\n\(result.errorOutput)")
        let messages = lines.compactMap(\.message)
        // What a worker's failure in deinit reads like: "… exited with status 71 in deinit", "… did not return from deinit …".
        let deinitFailure = { (text: String) in text.contains("in deinit") || text.contains("from deinit") }
        #expect(!messages.contains(where: deinitFailure), "\(result.output)")
        #expect(!deinitFailure(result.errorOutput), "\(result.errorOutput)")
        #expect(result.output.contains("not a regular file") && result.output.contains("writable by group and others"), "\(result.output)")
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
    }

    /// A restart loads the library again only while its file is the one loaded, unchanged: a file
    /// that became writable by others since the first load is refused, not loaded into a new worker.
    @Test func aRestartRefusesAFileThatChanged() throws {
        let workspace = try Workspace("worker-restart-trust")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins,
                                                 ["SHARE_FILE_AT=AT_OPEN_URL", "SEGV_AT=AT_OPEN_URL"])
        let mark = LeftoverProcesses.mark()
        // The plugin changes its own file's mode, which a sandboxed worker may not: unconfined here.
        let result = try Self.run(workspace, ["--open-url", "myapp://y", "--restart", "1", "--sandbox", "off"], mark: mark)
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        let messages = lines.compactMap(\.message)
        let refusal = messages.first { $0.hasPrefix("could not restart the worker of \(library) (restart 1 of 1)") }
        #expect(refusal?.hasSuffix("the file changed since its worker loaded it, and a restart brings back only the version "
                                   + "that served") == true, "\(result.output)")
        #expect(lines.filter { $0.log?.message == "init" }.count == 1,
                "\(result.output)")
        #expect(result.status == 5)
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
    }

    /// A worker that answers out of turn (a plugin wrote a frame on the channel) is killed
    /// at once, not asked to shut down: its library fails with what it answered, and no
    /// `deinit` timeout is reported for it.
    @Test func aReplyOutOfTurnEndsTheWorker() throws {
        let workspace = try Workspace("worker-out-of-turn")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["FORGE_BYE_AT=AT_INIT"])
        let mark = LeftoverProcesses.mark()
        let result = try Self.run(workspace, mark: mark)
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        let load = lines.load(of: library)
        #expect(load?.status == .failed, "\(result.output)")
        #expect(result.output.contains("the plugin worker answered the load with bye"), "\(result.output)")
        #expect(!lines.contains { $0.log?.message.contains("from deinit") == true },
                "\(result.output)")
        #expect(result.status == 4)
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
    }

    /// A log line plugin code writes on the channel itself, naming a plugin its library did not
    /// register (the host's own), is marked as in process, whether it comes during the load (held
    /// until the load's report names the library's plugins) or after; the plugin's own lines are not.
    @Test(arguments: ["AT_INIT", "AT_WILL_FINISH"])
    func aForgedLogLineIsMarkedAsForAnUnknownPlugin(place: String) throws {
        let workspace = try Workspace("worker-forged-log")
        defer { workspace.remove() }
        try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["FORGE_LOG_AT=\(place)", "LOG_AT=AT_WILL_FINISH"])
        let result = try CLI.run(["run", "--isolation", "process", "--plugin-dir", workspace.plugins,
                                  "--container", workspace.root.file("container")])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("[org.plugboard.files] error: forged [logged for unknown plugin id 'org.plugboard.files']"),
                "\(result.output)")
        #expect(result.output.contains("[com.example.hostile] info: hostile message\n"), "\(result.output)")
        #expect(!result.output.contains("logged for unknown plugin id 'com.example.hostile'"), "\(result.output)")
    }

    /// A worker that speaks another major version of the protocol is refused with both
    /// versions named (WORKER-PROTOCOL.md, "Versions and the handshake").
    @Test func aWorkerOfAnotherMajorVersionIsRefused() throws {
        let workspace = try Workspace("worker-version")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, [])
        // Answers `hello` (request id 1) with a `hello-reply` of protocol 2.0, then waits for end of stream.
        let (result, lines) = try Self.run(workspace, standIn: """
            #include <unistd.h>
            int main(void) {
                unsigned char buffer[256];
                static const unsigned char reply[] = {17, 0, 0, 0, 0x81, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0};
                if (read(3, buffer, sizeof buffer) <= 0 || write(3, reply, sizeof reply) != (ssize_t)sizeof reply) return 1;
                while (read(3, buffer, sizeof buffer) > 0) {}
                return 0;
            }
            """)
        let load = lines.load(of: library)
        #expect(load?.status == .failed, "\(result.output)")
        #expect(result.output.contains("the peer speaks worker protocol 2.0, which this side ("), "\(result.output)")
        #expect(result.output.contains("cannot: the major versions differ"), "\(result.output)")
        #expect(result.status == 3)
    }

    /// A worker whose load report is about another library (its path, and its plugins' source) is
    /// ended, and the load fails: the host acts on the library it asked the worker to load only.
    @Test func aLoadReportAboutAnotherLibraryEndsTheWorker() throws {
        let workspace = try Workspace("worker-other-report")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, [])
        let other = workspace.root.file("other.so")
        let report = #"{"path":"\#(other)","status":"loaded","plugins":[{"concerns":["launch"],"descriptor":{"id":"com.example.forged","#
            + #""name":"Forged","priority":0,"version":"1"},"functions":[],"refusedFunctions":[],"source":"\#(other)"}],"#
            + #""refused":[],"warnings":[]}"#
        let (result, lines) = try Self.run(workspace, standIn: Self.standIn(answeringLoadWith: report, minor: 8))
        let load = lines.load(of: library)
        #expect(load?.status == .failed, "\(result.output)")
        #expect(load?.failure?.message == "the plugin worker sent a load report about another library", "\(result.output)")
        #expect(lines.load(of: other) == nil && !result.output.contains("com.example.forged"), "\(result.output)")
    }

    /// A sandbox denial record that plugin code writes itself where the worker reports them is
    /// about a plugin only when that plugin is the library's: one naming another is reported as the
    /// library's, with the name it gave quoted, and about no plugin.
    @Test(arguments: [("com.example.victim", false), ("com.example.hostile", true)])
    func aDenialRecordNamesOnlyAPluginOfItsLibrary(named: String, own: Bool) throws {
        let workspace = try Workspace("worker-forged-denial")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins,
                                                 ["FORGE_DENIAL_AT=AT_OPEN_URL", "HOSTILE_FORGED_WHO=\"\(named)\""])
        let mark = LeftoverProcesses.mark()
        let result = try Self.run(workspace, mark: mark)
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        let reports = lines.compactMap(\.log).filter { $0.message.hasPrefix("sandbox: ") }
        let who = own ? named : "\(library) (its report named '\(named)', no plugin of the library)"
        #expect(reports.map(\.message) == ["sandbox: \(who) tried to trace a process (ptrace) in open_url; no grant allows it"],
                "\(result.output)")
        #expect(reports.map(\.plugin) == [own ? named : nil], "\(result.output)")
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
    }

    /// A worker of protocol 1.9 must say which file it loaded: one whose report of a loaded library
    /// lacks it is ended, and the load fails.
    @Test func aLoadedReportWithoutItsFileEndsTheWorker() throws {
        let workspace = try Workspace("worker-no-stamp")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, [])
        let report = #"{"path":"\#(library)","status":"loaded","plugins":[{"concerns":["launch"],"descriptor":"#
            + #"{"id":"com.example.hostile","name":"Hostile","priority":0,"version":"1"},"functions":[],"refusedFunctions":[],"#
            + #""source":"\#(library)"}],"refused":[],"warnings":[]}"#
        let (result, lines) = try Self.run(workspace, standIn: Self.standIn(answeringLoadWith: report, minor: 9))
        let load = lines.load(of: library)
        #expect(load?.status == .failed, "\(result.output)")
        #expect(load?.failure?.message == "the plugin worker sent a load report without the file it loaded", "\(result.output)")
    }

    /// The C source of a stand-in worker that answers `hello` (request id 1) with a `hello-reply` of
    /// protocol 1.`minor`, then the `load` (request id 2) with `loaded` carrying `report` and nothing
    /// more, then waits for end of stream.
    private static func standIn(answeringLoadWith report: String, minor: UInt8) -> String {
        let literal = report.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return """
            #include <stdint.h>
            #include <string.h>
            #include <unistd.h>
            static const char report[] = "\(literal)";
            int main(void) {
                static unsigned char buffer[65536], frame[65536];
                static const unsigned char hello[] = {17, 0, 0, 0, 0x81, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, \(minor), 0, 8, 0, 0, 0};
                if (read(3, buffer, sizeof buffer) <= 0 || write(3, hello, sizeof hello) != (ssize_t)sizeof hello) return 1;
                if (read(3, buffer, sizeof buffer) <= 0) return 1;
                uint32_t length = (uint32_t)strlen(report), payload = 1 + 8 + 4 + length;
                memcpy(frame, &payload, 4);
                frame[4] = 0x82;
                frame[5] = 2;
                memcpy(frame + 13, &length, 4);
                memcpy(frame + 17, report, length);
                if (write(3, frame, 17 + length) != (ssize_t)(17 + length)) return 1;
                while (read(3, buffer, sizeof buffer) > 0) {}
                return 0;
            }
            """
    }

    /// A library whose worker crashed while loading it is remembered in the scan cache:
    /// later runs skip it with the stored reason until its file changes, or `--retry-failed`.
    @Test func aCrashWhileLoadingIsRememberedUntilTheFileChanges() throws {
        let workspace = try Workspace("worker-remember")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["SEGV_AT=AT_INIT"])
        // Changed long before it is scanned, so the cache trusts what it stores (its racy window).
        var past = [timeval(tv_sec: time(nil) - 60, tv_usec: 0), timeval(tv_sec: time(nil) - 60, tv_usec: 0)]
        #expect(utimes(library, &past) == 0)
        let mark = LeftoverProcesses.mark()
        // A cache of its own: the suite's shared one is rewritten by the tests running alongside.
        let cache = ["--cache-dir", workspace.root.file("cache")]
        func loadLine(_ extra: [String] = []) throws -> (report: LoadReport, initCalled: Bool, status: Int32) {
            let result = try Self.run(workspace, cache + extra, mark: mark)
            let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
            let load = try #require(lines.load(of: library))
            let initCalled = lines.contains { $0.log?.source == library && $0.log?.message == "init" }
            return (load, initCalled, result.status)
        }
        let crashed = "\(library) crashed with SIGSEGV in init"
        let first = try loadLine()
        #expect(first.report.failure?.message == crashed && first.initCalled && first.status == 4)
        let second = try loadLine()
        #expect(second.report.failure?.message
            == crashed + "; remembered until the file changes, or pass --retry-failed", "\(second.report)")
        #expect(!second.initCalled, "a remembered crash is not loaded again")
        #expect(second.status == 4)
        let retried = try loadLine(["--retry-failed"])
        #expect(retried.initCalled && retried.report.failure?.message == crashed)
        var now = [timeval(tv_sec: time(nil) - 30, tv_usec: 0), timeval(tv_sec: time(nil) - 30, tv_usec: 0)]
        #expect(utimes(library, &now) == 0)
        #expect(try loadLine().initCalled, "a changed file is loaded again")
        #expect(LeftoverProcesses.noneLeft(mark))
    }

    /// A process a plugin forks in its worker ends with the worker: no orphan holds the
    /// worker's output open or outlives the run.
    @Test func aPluginsChildEndsWithItsWorker() throws {
        let workspace = try Workspace("worker-fork")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["FORK_AT=AT_INIT"])
        let mark = LeftoverProcesses.mark()
        let result = try Self.run(workspace, mark: mark)
        #expect(result.status == 0, "\(result.output)")
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid))
    }

    /// A host killed with SIGKILL takes its workers with it.
    @Test func workersDieWithTheirHost() throws {
        let workspace = try Workspace("worker-orphan")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let mark = LeftoverProcesses.mark()
        let host = try Self.start(workspace, ["--events", "-"], mark: mark)
        defer { host.stop() }
        #expect(host.waitForOutput(containing: "did-finish-launching →"), "\(host.output)")
        #expect(LeftoverProcesses.marked(mark, host: host.pid).count == 3, "the host and a worker per library")
        kill(host.pid, SIGKILL)
        _ = host.waitForExit()
        #expect(LeftoverProcesses.noneLeft(mark, host: host.pid))
    }

    /// A process that a plugin with an `execute` grant starts ends with its worker when the host is
    /// killed with SIGKILL: the kernel's death signal ends the worker only, and the worker's
    /// process-group guard ends the rest. The plugin cannot signal the guard, nor have the kernel's
    /// SIGHUP to an orphaned group with a stopped process (a child that stops itself) end it.
    @Test(arguments: [false, true])
    func aGrantedPluginsChildEndsWithAKilledHost(stopped: Bool) throws {
        let workspace = try Workspace("worker-orphan-child")
        defer { workspace.remove() }
        try PluginCompiler.hostile("libhostile.so", in: workspace.plugins,
                                   ["FORK_AT=AT_INIT", "NEIGHBOURS_AT=AT_INIT"] + (stopped ? ["FORK_STOPS"] : []))
        let policy = workspace.root.file("policy.json")
        try #"{"libraries": {"libhostile.so": {"execute": ["/bin/true"]}}}"#.write(toFile: policy, atomically: true, encoding: .utf8)
        let mark = LeftoverProcesses.mark()
        let host = try Self.start(workspace, ["--policy", policy, "--events", "-"], mark: mark)
        defer { host.stop() }
        #expect(host.waitForOutput(containing: "did-finish-launching →"), "\(host.output)")
        // Landlock's signal scope (ABI 6) is what keeps the plugin from signalling its guard.
        if SandboxSupport.kernel.landlockABI >= 6 {
            #expect(host.output.contains("neighbours it may signal: 0"), "\(host.output)")
        }
        #expect(LeftoverProcesses.marked(mark, host: host.pid).count == 4, "the host, the worker, its guard and the plugin's child")
        kill(host.pid, SIGKILL)
        _ = host.waitForExit()
        #expect(LeftoverProcesses.noneLeft(mark, host: host.pid))
    }
}
