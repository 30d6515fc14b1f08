import Foundation
import Glibc
import Plugboard
@testable import plugboard
import Testing

/// Plugins that join, reload and leave a running `plugboard run`, driven through the real binary
/// with events fed over time: files dropped in, replaced and removed while the host serves.
@Suite struct LivePluginTests {
    static let id = "com.example.live"

    /// A workspace with the live counter built as each of `versions` (by name) in its `stage`
    /// folder, ready to be installed into `plugins`.
    struct Stage {
        let workspace: Workspace
        let folder: String

        init(_ label: String) throws {
            workspace = try Workspace("live-" + label)
            folder = workspace.root.file("stage")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        }

        /// Builds the live counter as `name`.so, version `version`, with the C `defines` (a fault).
        @discardableResult
        func build(_ name: String, version: String = "1.0", _ defines: [String] = []) throws -> String {
            try PluginCompiler.compile(TestPaths.fixtures + "/live_counter.c", to: folder + "/\(name).so",
                                       flags: ["-DLIVE_VERSION=\"\(version)\""] + defines.map { "-D" + $0 })
        }

        /// The way an operator drops a file: `install`, which writes a new file and renames it into place.
        func install(_ name: String, as target: String = "liblive.so") throws {
            let result = try PlugboardTests.run("/usr/bin/install", ["-m", "755", folder + "/\(name).so", workspace.plugins + "/" + target])
            #expect(result.status == 0, "\(result.errorOutput)")
        }

        var library: String { workspace.plugins + "/liblive.so" }
    }

    /// `plugboard run --json --events -` (with `--watch` unless told) over a stage's plugins, fed
    /// events on its standard input as the test goes.
    final class Host {
        let process: LiveProcess
        let mark = LeftoverProcesses.mark()

        init(_ stage: Stage, isolation: String = "process", watch: Bool = true, events: String = "-", _ extra: [String] = []) throws {
            var environment = TestPaths.hermeticEnvironment
            environment["PLUGBOARD_PLUGIN_PATH"] = nil
            environment.merge(mark) { $1 }
            process = try LiveProcess(try CLI.binary(),
                                      ["run", "--json", "--isolation", isolation, "--plugin-dir", stage.workspace.plugins,
                                       "--container", stage.workspace.root.file("container"), "--events", events]
                                      + (watch ? ["--watch"] : []) + extra,
                                      environment: environment)
            // Ready once launched: the folders are watched from before loading.
            #expect(waitFor("\"event\":\"did-finish-launching\""), "\(process.output)")
        }

        deinit { process.stop() }

        /// Sends an events line.
        func send(_ line: String) throws {
            try process.send(line + "\n")
        }

        /// Opens a URL and waits for its report: the `count`-th open-url report.
        func openURL(_ count: Int) throws {
            try send(#"{"event":"open-url","url":"myapp://\#(count)"}"#)
            #expect(waitFor("\"event\":\"open-url\"", times: count), "\(process.output)")
        }

        /// Waits until `text` was printed `times` times.
        @discardableResult
        func waitFor(_ text: String, times: Int = 1, timeout: Duration = .seconds(30)) -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if process.output.components(separatedBy: text).count - 1 >= times { return true }
                usleep(5_000)
            }
            return false
        }

        /// Waits for the `times`-th change of `kind`.
        func waitForChange(_ kind: LibraryChange.Kind, times: Int = 1) {
            #expect(waitFor("\"type\":\"\(kind.rawValue)\"", times: times), "no \(kind.rawValue) line:\n\(process.output)")
        }

        /// The host's open file descriptors now.
        var descriptors: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/fd"))?.count ?? 0 }

        /// The workers running now (processes of this test's mark but the host).
        var workers: Int { LeftoverProcesses.marked(mark, host: process.pid).filter { $0 != process.pid }.count }

        /// Ends the events (the end of standard input ends a watching run), checks that the run
        /// ended with `status`, and returns the run's lines.
        func finish(status: Int32 = 0) throws -> [RunLine] {
            process.closeInput()
            let (ending, output, timedOut) = process.waitForExit(timeout: .seconds(30))
            #expect(!timedOut && ending == .exit(status), "\(ending)\n\(output)")
            #expect(LeftoverProcesses.noneLeft(mark, host: process.pid), "the run left processes behind")
            return try #require(CLI.runLines(output), "not run lines:\n\(output)")
        }
    }

    @Test(arguments: ["process", "none"])
    func aLibraryDroppedIntoARunningHostCatchesUpAndAnswersTheNextEvent(isolation: String) throws {
        let stage = try Stage("join")
        defer { stage.workspace.remove() }
        try stage.build("live")
        let host = try Host(stage, isolation: isolation)
        try host.send(#"{"event":"did-enter-background"}"#)
        try host.send(#"{"event":"did-become-active"}"#)
        #expect(host.waitFor("\"event\":\"did-become-active\""))
        try stage.install("live")
        host.waitForChange(.joined)
        try host.openURL(1)
        let lines = try host.finish()
        let joined = try #require(lines.compactMap(\.change).first)
        #expect(joined.kind == .joined && joined.path == stage.library && joined.toVersion == "1.0" && joined.plugins.map(\.rawValue) == [Self.id])
        #expect(joined.catchUp.map(\.event.name) == ["will-finish-launching", "did-finish-launching", "did-become-active"])
        #expect(lines.logs(of: Self.id) == ["will-finish-launching", "did-finish-launching", "did-become-active", "count 1 (1.0)"])
        let opened = try #require(lines.compactMap(\.event).first { $0.event.name == "open-url" })
        #expect(opened.decidedBy.map(\.rawValue) == [Self.id])
    }

    @Test func aReplacedLibraryKeepsCountingFromItsSavedStateAndReportsItsNewVersion() throws {
        let stage = try Stage("reload")
        defer { stage.workspace.remove() }
        try stage.build("one")
        try stage.build("two", version: "2.0")
        try stage.install("one")
        let host = try Host(stage)
        try host.openURL(1)
        try host.openURL(2)
        try stage.install("two")
        host.waitForChange(.reloaded)
        try host.openURL(3)
        #expect(host.workers == 1, "the old worker ended")
        let lines = try host.finish()
        let reloaded = try #require(lines.compactMap(\.change).first)
        #expect(reloaded.kind == .reloaded && reloaded.fromVersion == "1.0" && reloaded.toVersion == "2.0", "\(reloaded)")
        #expect(reloaded.sentence.hasPrefix("reloaded \(stage.library) 1.0 → 2.0 in "), "\(reloaded.sentence)")
        #expect(reloaded.states.first?.entries.map(\.outcome) == [.restored])
        #expect(lines.logs(of: Self.id) == [
            "will-finish-launching", "did-finish-launching", "count 1 (1.0)", "count 2 (1.0)",
            "restored count 2 (saved by 1.0)", "will-finish-launching", "did-finish-launching", "count 3 (2.0)",
        ])
        // The new version saved at the end of the run.
        #expect(lines.compactMap(\.state).last?.entries.map(\.outcome) == [.saved])
    }

    @Test(arguments: [
        (["LIVE_CRASH_IN_INIT"], "crashed with SIGSEGV in init"),
        (["LIVE_HANG_IN_INIT"], "did not return from init within 1 s"),
        (["LIVE_REFUSE"], "init returned false: this version refuses to start"),
        (["LIVE_CRASH_IN_RESTORE"], "com.example.live crashed with SIGSEGV in restore_state"),
    ])
    func aBrokenNextVersionLeavesThePreviousOneServing(fault: [String], cause: String) throws {
        let stage = try Stage("broken")
        defer { stage.workspace.remove() }
        try stage.build("one")
        try stage.build("broken", version: "2.0", fault)
        try stage.install("one")
        let host = try Host(stage, ["--call-timeout", "1"])
        try host.openURL(1)
        try stage.install("broken")
        host.waitForChange(.reloadFailed)
        try host.openURL(2)
        #expect(host.workers == 1, "the broken version's worker ended")
        // The library that failed to reload makes the run exit 4, as a library that fails at the start does.
        let lines = try host.finish(status: 4)
        let failed = try #require(lines.compactMap(\.change).first)
        #expect(failed.kind == .reloadFailed && failed.failure?.contains(cause) == true, "\(failed)")
        #expect(failed.sentence.hasPrefix("reload of \(stage.library) failed: ") && failed.sentence.hasSuffix("; 1.0 kept"),
                "\(failed.sentence)")
        #expect(lines.logs(of: Self.id).filter { $0.hasPrefix("count") } == ["count 1 (1.0)", "count 2 (1.0)"])
    }

    @Test func aLibraryCannotJoinWithTheIDOfAPluginThatServes() throws {
        let stage = try Stage("same-id")
        defer { stage.workspace.remove() }
        try stage.build("one")
        try stage.install("one")
        let host = try Host(stage)
        try stage.install("one", as: "libcopy.so")
        host.waitForChange(.joinFailed)
        try host.openURL(1)
        let lines = try host.finish(status: 4)
        let refused = try #require(lines.compactMap(\.change).first)
        #expect(refused.path == stage.workspace.plugins + "/libcopy.so")
        #expect(refused.failure?.contains("plugin id 'com.example.live' is registered by \(stage.library) already") == true,
                "\(refused.sentence)")
        #expect(lines.logs(of: Self.id).filter { $0.hasPrefix("count") } == ["count 1 (1.0)"], "the first one serves on")
    }

    @Test func aVetoFromAJoiningPluginIsReportedAndDoesNotUndoTheLaunch() throws {
        let stage = try Stage("veto")
        defer { stage.workspace.remove() }
        try stage.build("veto", ["LIVE_VETO"])
        let host = try Host(stage)
        try stage.install("veto")
        host.waitForChange(.joined)
        try host.openURL(1)
        let lines = try host.finish()
        let joined = try #require(lines.compactMap(\.change).first)
        #expect(joined.kind == .joined && joined.catchUp.first?.accepted == false)
        #expect(joined.warnings.contains { $0.contains("a late veto does not undo the launch") }, "\(joined.warnings)")
        #expect(lines.logs(of: Self.id).last == "count 1 (1.0)")
    }

    @Test func aRemovedLibrarySavesItsStateAndLeaves() throws {
        let stage = try Stage("leave")
        defer { stage.workspace.remove() }
        try stage.build("one")
        try stage.install("one")
        let host = try Host(stage)
        try host.openURL(1)
        try host.openURL(2)
        try FileManager.default.removeItem(atPath: stage.library)
        host.waitForChange(.left)
        #expect(host.workers == 0, "the worker ended")
        try host.openURL(3)
        let lines = try host.finish()
        let left = try #require(lines.compactMap(\.change).first)
        #expect(left.kind == .left && left.plugins.map(\.rawValue) == [Self.id] && left.fromVersion == "1.0")
        #expect(left.states.first?.entries.map(\.outcome) == [.saved])
        let opened = lines.compactMap(\.event).filter { $0.event.name == "open-url" }
        #expect(opened.map { $0.decidedBy.isEmpty } == [false, false, true], "nobody handles the third URL")
        #expect(try SavedStateRunTests.shownState(stage.workspace, Self.id) == "count 2", "the state it left with")
    }

    @Test func sighupAppliesTheChangesWithoutWatching() throws {
        let stage = try Stage("sighup")
        defer { stage.workspace.remove() }
        try stage.build("one")
        // Without --watch a run whose folder has no plugin ends at once (exit 3): another serves meanwhile.
        try stage.build("other", ["LIVE_ID=\"com.example.other\""])
        try stage.install("other", as: "libother.so")
        let fifo = stage.workspace.root.file("events.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let host = try Host(stage, watch: false, events: fifo)
        let events = try #require(Self.openForWriting(fifo), "the run never opened its events FIFO:\n\(host.process.output)")
        try stage.install("one")
        events.write(Data(#"{"event":"open-url","url":"myapp://before"}"#.utf8 + [10]))
        #expect(host.waitFor("\"event\":\"open-url\""))
        #expect(!host.process.output.contains("\"type\":\"joined\""), "nothing is watched without --watch")
        kill(host.process.pid, SIGHUP)
        host.waitForChange(.joined)
        events.write(Data(#"{"event":"open-url","url":"myapp://after"}"#.utf8 + [10]))
        #expect(host.waitFor("\"event\":\"open-url\"", times: 2))
        try events.close()
        let lines = try host.finish()
        let opened = lines.compactMap(\.event).filter { $0.event.name == "open-url" }
        #expect(opened.map { $0.decidedBy.map(\.rawValue) } == [["com.example.other"], [Self.id]], "the joined plugin comes first by id")
    }

    /// The write end of the FIFO at `path`, once its reader (the run, after launching) opened it; nil
    /// after 20 s without one (a blocking open would wait forever for a run that ended).
    static func openForWriting(_ fifo: String) -> FileHandle? {
        for _ in 0..<2_000 {
            let descriptor = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor >= 0 {
                _ = fcntl(descriptor, F_SETFL, 0)
                return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            }
            usleep(10_000)
        }
        return nil
    }

    @Test func aFileStillBeingWrittenIsNotLoadedUntilItIsComplete() throws {
        let stage = try Stage("half")
        defer { stage.workspace.remove() }
        let built = try Data(contentsOf: URL(fileURLWithPath: try stage.build("one")))
        let host = try Host(stage)
        #expect(FileManager.default.createFile(atPath: stage.library, contents: nil, attributes: [.posixPermissions: 0o755]))
        let file = try #require(FileHandle(forWritingAtPath: stage.library))
        file.write(built.prefix(built.count / 2))
        // Past the quiet time, and an event later: the half file is still open for writing, and waits.
        usleep(400_000)
        try host.openURL(1)
        #expect(!host.process.output.contains("\"type\":\"join"), "a half-written file was taken:\n\(host.process.output)")
        file.write(built.dropFirst(built.count / 2))
        try file.close()
        host.waitForChange(.joined)
        try host.openURL(2)
        let lines = try host.finish()
        #expect(lines.compactMap(\.change).map(\.kind) == [.joined], "taken once, complete")
        #expect(lines.logs(of: Self.id).last == "count 1 (1.0)")
    }

    @Test func twentyReloadsWhileEventsFlowAnswerEveryEventExactlyOnce() throws {
        let stage = try Stage("twenty")
        defer { stage.workspace.remove() }
        try stage.build("odd", version: "1.0")
        try stage.build("even", version: "2.0")
        try stage.install("odd")
        let host = try Host(stage)
        var sent = 0, descriptors = 0
        for round in 1...20 {
            try stage.install(round % 2 == 1 ? "even" : "odd")
            for _ in 0..<3 {
                sent += 1
                try host.send(#"{"event":"open-url","url":"myapp://\#(sent)"}"#)
            }
            host.waitForChange(.reloaded, times: round)
            #expect(host.workers == 1, "one worker after reload \(round)")
            if round == 1 { descriptors = host.descriptors }
        }
        // A replaced worker's streams are closed once read to their end (two a reload stayed open).
        #expect(host.descriptors < descriptors + 6, "\(descriptors) open descriptors after the first reload, \(host.descriptors) after the last")
        #expect(host.waitFor("\"event\":\"open-url\"", times: sent))
        let lines = try host.finish()
        let changes = lines.compactMap(\.change)
        #expect(changes.count == 20 && changes.allSatisfy { $0.kind == .reloaded }, "\(changes.map(\.sentence))")
        let opened = lines.compactMap(\.event).filter { $0.event.name == "open-url" }
        #expect(opened.count == sent && opened.allSatisfy { $0.decidedBy.map(\.rawValue) == [Self.id] })
        let counts = lines.logs(of: Self.id).filter { $0.hasPrefix("count ") }.map { $0.split(separator: " ")[1] }
        #expect(counts == (1...sent).map { Substring(String($0)) }, "each event counted once, the count carried across every reload")
    }

    @Test func inProcessAReplacementIsReportedOnceAsNeedingARestart() throws {
        let stage = try Stage("in-process")
        defer { stage.workspace.remove() }
        try stage.build("one")
        try stage.build("two", version: "2.0")
        try stage.install("one")
        let host = try Host(stage, isolation: "none")
        try host.openURL(1)
        try stage.install("two")
        host.waitForChange(.restartNeeded)
        try host.openURL(2)
        kill(host.process.pid, SIGHUP)
        try host.openURL(3)
        let lines = try host.finish()
        let changes = lines.compactMap(\.change)
        #expect(changes.map(\.kind) == [.restartNeeded], "reported once: \(changes.map(\.sentence))")
        #expect(changes.first?.sentence.contains("restart plugboard") == true)
        #expect(lines.logs(of: Self.id).filter { $0.hasPrefix("count") } == ["count 1 (1.0)", "count 2 (1.0)", "count 3 (1.0)"])
    }

    /// Replaces a counting plugin built once (its file installed again: a new inode) and expects it
    /// to count on from its state.
    static func expectReloadKeepsCounting(_ stage: Stage, library: String, id: String, url: String) throws {
        try stage.install(library, as: library + ".so")
        let host = try Host(stage)
        try host.send(#"{"event":"open-url","url":"\#(url)"}"#)
        #expect(host.waitFor("\"event\":\"open-url\""))
        try stage.install(library, as: library + ".so")
        host.waitForChange(.reloaded)
        try host.send(#"{"event":"open-url","url":"\#(url)"}"#)
        #expect(host.waitFor("\"event\":\"open-url\"", times: 2))
        let lines = try host.finish()
        let logs = lines.logs(of: id)
        #expect(logs.filter { $0.hasPrefix("count") } == ["count 1", "count 2"], "\(logs)")
        #expect(logs.contains { $0.hasPrefix("restored count 1") }, "\(logs)")
    }

    @Test func aRustPluginReloadsWithItsState() throws {
        let stage = try Stage("rust")
        defer { stage.workspace.remove() }
        try Cargo.buildPlugin("Tests/PlugboardTests/Fixtures/rust-state", in: stage.workspace.root, into: stage.folder)
        try Self.expectReloadKeepsCounting(stage, library: "rust-state", id: "com.example.rust-state", url: "myapp://x")
    }

    @Test func aSwiftPluginReloadsWithItsState() throws {
        let stage = try Stage("swift")
        defer { stage.workspace.remove() }
        let built = try SwiftPackageLibraries.copy(SwiftPackageLibraries.probe, into: stage.folder)
        let name = URL(fileURLWithPath: built).deletingPathExtension().lastPathComponent
        try Self.expectReloadKeepsCounting(stage, library: name, id: "com.example.swift-sdk-probe", url: "probe://count")
    }
}
