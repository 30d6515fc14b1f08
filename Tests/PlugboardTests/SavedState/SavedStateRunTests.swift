import Foundation
import Plugboard
@testable import plugboard
import Testing

/// Saved state through the real `plugboard` binary and real plugins, in both isolation modes:
/// a state survives runs, an unusable file is no state and a warning, a failing save keeps the
/// previous file, and `plugboard state` lists, shows and removes the files.
@Suite struct SavedStateRunTests {
    static let isolations = ["process", "none"]
    static let counter = "com.example.counter"
    static let hostile = "com.example.hostile"

    /// A workspace with the counter plugin (`saved_state_plugin.c`) built as `version`.
    static func workspace(_ label: String, counterVersion version: String? = "1.0") throws -> Workspace {
        let workspace = try Workspace("state-" + label)
        if let version { try buildCounter(in: workspace, version: version) }
        return workspace
    }

    static func buildCounter(in workspace: Workspace, version: String) throws {
        try PluginCompiler.compile(TestPaths.fixtures + "/saved_state_plugin.c", to: workspace.plugins + "/counter.so",
                                   flags: ["-DSTATE_VERSION=\"\(version)\""])
    }

    /// `plugboard run --json` over the workspace's plugins and container, opening `urls`.
    static func run(_ workspace: Workspace, _ isolation: String, urls: Int = 0, _ extra: [String] = []) throws -> ProcessResult {
        try CLI.run(["run", "--isolation", isolation, "--json", "--plugin-dir", workspace.plugins,
                     "--container", workspace.root.file("container")]
                    + (0..<urls).flatMap { ["--open-url", "myapp://\($0)"] } + extra)
    }

    /// `plugboard state ARGUMENTS… --container …`.
    static func state(_ workspace: Workspace, _ arguments: [String]) throws -> ProcessResult {
        try CLI.run(["state"] + arguments + ["--container", workspace.root.file("container")])
    }

    /// The path of `id`'s state file, as `plugboard` writes it (normalized: no `//`).
    static func file(_ workspace: Workspace, _ id: String) -> String {
        workspace.root.file("container/Library/Plugboard State/\(id).state").replacingOccurrences(of: "//", with: "/")
    }

    /// The entries of the `state` line of `operation` (restore or save).
    static func entries(_ result: ProcessResult, _ operation: String) throws -> [SavedStateReport.Entry] {
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)\n\(result.errorOutput)")
        return lines.compactMap(\.state).filter { $0.operation.rawValue == operation }.flatMap(\.entries)
    }

    /// A JSON array document, or nil.
    static func jsonArray(_ text: String) -> [Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [Any]
    }

    /// The messages `plugin` logged.
    static func logs(_ result: ProcessResult, of plugin: String) -> [String] {
        (CLI.runLines(result.output) ?? []).logs(of: plugin)
    }

    /// The state text `state show --json` finds for `id`.
    static func shownState(_ workspace: Workspace, _ id: String) throws -> String? {
        let result = try state(workspace, ["show", id, "--json"])
        return jsonObject(result.output)?.string("state")
    }

    @Test(arguments: isolations)
    func aStateSurvivesRunsAndCarriesTheVersionThatSavedIt(isolation: String) throws {
        let workspace = try Self.workspace("survive")
        defer { workspace.remove() }
        let first = try Self.run(workspace, isolation, urls: 2)
        #expect(first.status == 0, "\(first.output)\n\(first.errorOutput)")
        #expect(try Self.entries(first, "restore").isEmpty, "no file: no state, quietly")
        let saved = try Self.entries(first, "save")
        #expect(saved.map(\.outcome.rawValue) == ["saved"] && saved.first?.bytes == 7, "\(first.output)")

        try Self.buildCounter(in: workspace, version: "2.0")
        let second = try Self.run(workspace, isolation, urls: 1)
        #expect(second.status == 0, "\(second.output)\n\(second.errorOutput)")
        #expect(Self.logs(second, of: Self.counter) == ["restored count 2 (saved by 1.0)", "count 3"], "\(second.output)")
        #expect(try Self.entries(second, "restore").map(\.outcome.rawValue) == ["restored"])
        #expect(try Self.shownState(workspace, Self.counter) == "count 3")
        let shown = try #require(jsonObject(try Self.state(workspace, ["show", Self.counter, "--json"]).output))
        #expect(shown.string("version") == "2.0" && shown.string("encoding") == "utf-8" && shown.int("stateBytes") == 7)
    }

    /// Runs `id`, a counting plugin (one count per `url` opened), twice: two counts, then one more
    /// after the state saved by `version` was restored.
    static func expectCounterKeepsItsCount(_ workspace: Workspace, _ isolation: String, id: String, url: String = "myapp://x",
                                           version: String = "1.0") throws {
        let open = ["--open-url", url]
        let first = try run(workspace, isolation, open + open)
        #expect(first.status == 0 && logs(first, of: id) == ["count 1", "count 2"], "\(first.output)\n\(first.errorOutput)")
        let second = try run(workspace, isolation, open)
        #expect(logs(second, of: id) == ["restored count 2 (saved by \(version))", "count 3"], "\(second.output)")
        #expect(try shownState(workspace, id) == "count 3")
    }

    @Test(arguments: isolations)
    func aCPlusPlusPluginKeepsItsStateThroughTheHeaderSDK(isolation: String) throws {
        let workspace = try Self.workspace("cpp", counterVersion: nil)
        defer { workspace.remove() }
        try PluginCompiler.compile(TestPaths.fixtures + "/saved_state_cpp_plugin.cpp", to: workspace.plugins + "/cpp.so",
                                   cplusplus: true)
        try Self.expectCounterKeepsItsCount(workspace, isolation, id: "com.example.cpp-counter")
    }

    @Test(arguments: isolations)
    func aRustPluginKeepsItsStateThroughTheSDK(isolation: String) throws {
        let workspace = try Self.workspace("rust", counterVersion: nil)
        defer { workspace.remove() }
        try Cargo.buildPlugin("Tests/PlugboardTests/Fixtures/rust-state", in: workspace.root, into: workspace.plugins)
        try Self.expectCounterKeepsItsCount(workspace, isolation, id: "com.example.rust-state")
    }

    @Test(arguments: isolations)
    func aSwiftPluginKeepsItsStateThroughTheSDK(isolation: String) throws {
        let workspace = try Self.workspace("swift", counterVersion: nil)
        defer { workspace.remove() }
        try SwiftPackageLibraries.copy(SwiftPackageLibraries.probe, into: workspace.plugins)
        try Self.expectCounterKeepsItsCount(workspace, isolation, id: "com.example.swift-sdk-probe", url: "probe://count",
                                            version: "0")
    }

    @Test(arguments: isolations, ["flipped", "truncated", "foreign", "text", "huge"])
    func anUnusableFileIsNoStateAndAWarningNamingItsCause(isolation: String, damage: String) throws {
        let workspace = try Self.workspace("damaged")
        defer { workspace.remove() }
        _ = try Self.run(workspace, isolation, urls: 2)
        let path = Self.file(workspace, Self.counter)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let cause: String
        switch damage {
        case "flipped": bytes[bytes.count - 9] ^= 0x10; cause = "checksum mismatch"
        case "truncated": bytes.removeLast(12); cause = "truncated"
        case "foreign": bytes = try Self.foreignFile(); cause = "saved for another plugin, 'com.example.other'"
        case "huge": cause = "larger than any state file"
        default: bytes = Array("count 99".utf8); cause = "not a Plugboard state file"
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        if damage == "huge" {
            // Sparse: 17 MiB + 1 byte of holes, more than a state file can be, never read.
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.truncate(atOffset: 17 * 1024 * 1024 + 1)
            try handle.close()
        }
        let result = try Self.run(workspace, isolation, urls: 1)
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let restore = try Self.entries(result, "restore")
        #expect(restore.map(\.outcome.rawValue) == ["no-state"], "\(result.output)")
        let warning = restore.first?.warning ?? ""
        #expect(warning.contains(path) && warning.contains(cause), "\(warning)")
        #expect(Self.logs(result, of: Self.counter) == ["count 1"], "started without state: \(result.output)")
        #expect(try Self.shownState(workspace, Self.counter) == "count 1", "the save replaced the unusable file")
        // The file it could not use was kept aside, as it was, before the new state was written.
        let aside = path + SavedStateStore.asideSuffix
        let kept = try Data(contentsOf: URL(fileURLWithPath: aside))
        #expect(damage == "huge" ? kept.count == 17 * 1024 * 1024 + 1 : [UInt8](kept) == bytes, "\(kept.count) bytes kept aside")
        let saved = try Self.entries(result, "save").first { $0.plugin.rawValue == Self.counter }
        #expect(saved?.warning?.contains("was kept as '\(aside)'") == true, "\(result.output)")
    }

    /// A valid state file saved for `com.example.other`, written with the format of the host (through a run).
    static func foreignFile() throws -> [UInt8] {
        let workspace = try Workspace("state-foreign")
        defer { workspace.remove() }
        try PluginCompiler.compile(TestPaths.fixtures + "/saved_state_plugin.c", to: workspace.plugins + "/other.so",
                                   flags: ["-DSTATE_ID=\"com.example.other\""])
        _ = try run(workspace, "none")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: file(workspace, "com.example.other"))))
    }

    @Test(arguments: isolations)
    func resetStateStartsCleanAndSaysSo(isolation: String) throws {
        let workspace = try Self.workspace("reset")
        defer { workspace.remove() }
        _ = try Self.run(workspace, isolation, urls: 3)
        let result = try Self.run(workspace, isolation, urls: 1, ["--reset-state"])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let notes = (CLI.runLines(result.output) ?? []).compactMap(\.note)
        #expect(notes.contains { $0.contains("--reset-state: removed 1 state file(s)") }, "\(result.output)")
        #expect(Self.logs(result, of: Self.counter) == ["count 1"])
    }

    @Test func resetStateThatCannotRemoveAStateRunsNothing() throws {
        let workspace = try Self.workspace("reset-fails")
        defer { workspace.remove() }
        _ = try Self.run(workspace, "none", urls: 3)
        // A state file whose name the container refuses cannot be removed; the counter's file can. A
        // folder named like a state file is no state file: it stays, and stops nothing.
        let folder = workspace.root.file("container/Library/Plugboard State/a.state")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/inside"))
        let stuck = Self.file(workspace, "com.example.\u{1B}[31mred")
        try Data("junk".utf8).write(to: URL(fileURLWithPath: stuck))
        let result = try Self.run(workspace, "none", urls: 1, ["--reset-state"])
        #expect(result.status == 1, "\(result.output)\n\(result.errorOutput)")
        let notes = (CLI.runLines(result.output) ?? []).compactMap(\.note)
        #expect(notes.contains { $0.contains("--reset-state: removed 1 state file(s)") && $0.contains("but not every one: delete ")
                    && $0.contains("red.state") && !$0.contains("a.state") && $0.hasSuffix("nothing was run") }, "\(result.output)")
        #expect(Self.logs(result, of: Self.counter).isEmpty, "nothing ran: \(result.output)")
        #expect(!FileManager.default.fileExists(atPath: Self.file(workspace, Self.counter)), "the state that could go went")
        #expect(FileManager.default.fileExists(atPath: folder + "/inside"))
    }

    @Test(arguments: isolations)
    func aPluginThePolicyDeniesSavedStateIsNeverAskedAndSaidSo(isolation: String) throws {
        let workspace = try Self.workspace("denied-\(isolation)")
        defer { workspace.remove() }
        _ = try Self.run(workspace, isolation, urls: 2)
        let policy = workspace.root.file("policy.json")
        try Data(#"{"plugins": {"com.example.counter": {"deny": ["saved-state"]}}}"#.utf8).write(to: URL(fileURLWithPath: policy))
        let result = try Self.run(workspace, isolation, urls: 1, ["--policy", policy])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        for operation in ["restore", "save"] {
            let entries = try Self.entries(result, operation)
            #expect(entries.map(\.outcome.rawValue) == ["denied"], "\(operation): \(result.output)")
            #expect(entries.first?.warning?.contains("denies com.example.counter saved-state") == true)
        }
        #expect(Self.logs(result, of: Self.counter) == [
            "restore_state not delivered: the policy '\(policy)' denies \(Self.counter) saved-state",
            "count 1",
            "save_state not delivered: the policy '\(policy)' denies \(Self.counter) saved-state",
        ], "not restored: \(result.output)")
        #expect(try Self.shownState(workspace, Self.counter) == "count 2", "not saved over")
    }

    @Test func stateListsShowsAndRemovesTheFiles() throws {
        let workspace = try Self.workspace("commands")
        defer { workspace.remove() }
        let empty = try Self.state(workspace, ["ls"])
        #expect(empty.status == 0 && empty.output.contains("no saved state"), "\(empty.output)\(empty.errorOutput)")
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["SAVED_STATE", "HOSTILE_STATE=\"\\001\\377binary\""])
        _ = try Self.run(workspace, "none", urls: 1)
        try Data("junk".utf8).write(to: URL(fileURLWithPath: Self.file(workspace, "com.example.junk")))

        let listing = try Self.state(workspace, ["ls", "--json"])
        let rows = try #require(Self.jsonArray(listing.output)?.compactMap { $0 as? [String: Any] }, "\(listing.output)")
        #expect(rows.compactMap { $0.string("plugin") } == ["com.example.counter", "com.example.hostile", "com.example.junk"])
        #expect(rows.map { $0["valid"] as? Bool } == [true, true, false])
        #expect(rows.last?.string("problem")?.contains("not a Plugboard state file") == true, "\(listing.output)")
        let human = try Self.state(workspace, ["ls"])
        #expect(human.output.contains("com.example.junk  UNUSABLE: not a Plugboard state file"), "\(human.output)")

        let binary = try Self.state(workspace, ["show", Self.hostile])
        #expect(binary.status == 0 && binary.output.contains("00000000  01 ff 62 69 6e 61 72 79") && binary.output.contains("|..binary|"),
                "\(binary.output)")
        let junk = try Self.state(workspace, ["show", "com.example.junk"])
        #expect(junk.status == 1 && junk.errorOutput.contains(Self.file(workspace, "com.example.junk"))
                && junk.errorOutput.contains("not a Plugboard state file"), "\(junk.errorOutput)")
        let missing = try Self.state(workspace, ["show", "com.example.missing"])
        #expect(missing.status == 1 && missing.errorOutput.contains("no saved state for com.example.missing"), "\(missing.errorOutput)")
        #expect(try Self.state(workspace, ["show", "not-an-id"]).status == 64)
        #expect(try Self.state(workspace, ["rm"]).status == 64)
        #expect(try Self.state(workspace, ["rm", "--all", Self.counter]).status == 64)

        let removed = try Self.state(workspace, ["rm", Self.counter, "com.example.missing"])
        #expect(removed.status == 1 && removed.output.contains("removed '\(Self.file(workspace, Self.counter))'")
                && removed.errorOutput.contains("com.example.missing"), "\(removed.output)\(removed.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: Self.file(workspace, Self.counter)))
        let all = try Self.state(workspace, ["rm", "--all", "--json"])
        #expect(all.status == 0 && Self.jsonArray(all.output)?.count == 2 && all.output.contains("com.example.junk.state"), "\(all.output)")
        #expect(Self.jsonArray(try Self.state(workspace, ["ls", "--json"]).output)?.isEmpty == true)
    }

    /// `state rm --all` goes on past a file it cannot remove (a name with a control character,
    /// which the container refuses, put there by something else): the others go, the one left is
    /// named (escaped), and the exit says it failed. `run --reset-state` then removes what it can and
    /// runs nothing.
    @Test func removingEveryStateGoesOnPastOneThatCannotBeRemoved() throws {
        let workspace = try Self.workspace("rm-all")
        defer { workspace.remove() }
        _ = try Self.run(workspace, "none", urls: 1)
        let stuck = Self.file(workspace, "com.example.\u{1B}[31mred")
        try Data("junk".utf8).write(to: URL(fileURLWithPath: stuck))
        try Data("junk".utf8).write(to: URL(fileURLWithPath: Self.file(workspace, "com.example.zzz")))

        let all = try Self.state(workspace, ["rm", "--all"])
        #expect(all.status == 1, "\(all.output)\(all.errorOutput)")
        #expect(all.output.contains("removed '\(Self.file(workspace, Self.counter))'")
                && all.output.contains("removed '\(Self.file(workspace, "com.example.zzz"))'"), "\(all.output)")
        #expect(all.errorOutput.contains("com.example.\\x1b[31mred.state") && !all.errorOutput.contains("\u{1B}"), "\(all.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: Self.file(workspace, Self.counter)))
        #expect(!FileManager.default.fileExists(atPath: Self.file(workspace, "com.example.zzz")))
        #expect(FileManager.default.fileExists(atPath: stuck))

        _ = try Self.run(workspace, "none", urls: 1)
        let reset = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("container"), "--reset-state"])
        #expect(reset.status == 1, "\(reset.output)\(reset.errorOutput)")
        #expect(reset.output.contains("--reset-state: removed 1 state file(s)") && reset.output.contains("but not every one")
                && reset.output.contains("nothing was run"), "\(reset.output)")
        #expect(!FileManager.default.fileExists(atPath: Self.file(workspace, Self.counter)))
    }

    /// A first run saves "first"; a second run's save fails: the file still holds "first".
    @Test(arguments: [
        ("process", ["SEGV_AT=AT_SAVE_STATE"], "com.example.hostile crashed with SIGSEGV in save_state"),
        ("process", ["SPIN_AT=AT_SAVE_STATE"], "com.example.hostile did not return from save_state within 1 s"),
        ("process", ["NULL_STATE_AT=AT_SAVE_STATE"], "save_state returned NULL data with a size of 100"),
        ("none", ["NULL_STATE_AT=AT_SAVE_STATE"], "save_state returned NULL data with a size of 100"),
        ("process", ["HUGE_STATE_AT=AT_SAVE_STATE"], "save_state returned 16777217 bytes, over the limit"),
        ("none", ["HUGE_STATE_AT=AT_SAVE_STATE"], "save_state returned 16777217 bytes, over the limit"),
        // A size_t from 2^63 on, which Swift reads as a negative Int: refused, not a trap in the host.
        ("none", ["HUGE_STATE_AT=AT_SAVE_STATE", "HUGE_STATE_SIZE=((size_t)-1)"],
         "save_state returned 18446744073709551615 bytes, over the limit"),
        ("process", ["HUGE_STATE_AT=AT_SAVE_STATE", "HUGE_STATE_SIZE=((size_t)1 << 62)"],
         "save_state returned 4611686018427387904 bytes, over the limit"),
    ])
    func aFailingSaveKeepsThePreviousState(isolation: String, definitions: [String], words: String) throws {
        let workspace = try Self.workspace("failed-save", counterVersion: nil)
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["SAVED_STATE", "HOSTILE_STATE=\"first\""])
        _ = try Self.run(workspace, isolation)
        #expect(try Self.shownState(workspace, Self.hostile) == "first")
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["SAVED_STATE", "HOSTILE_STATE=\"second\""] + definitions)
        let result = try Self.run(workspace, isolation, ["--call-timeout", "1"])
        let kept = try Self.entries(result, "save")
        #expect(kept.map(\.outcome.rawValue) == ["kept"], "\(result.output)")
        #expect(kept.first?.warning?.contains(words) == true, "\(kept)")
        #expect(result.status == (definitions[0].hasPrefix("SEGV") || definitions[0].hasPrefix("SPIN") ? 5 : 0), "\(result.output)")
        #expect(try Self.shownState(workspace, Self.hostile) == "first")
    }

    @Test func aPluginWhoseWorkerCrashedKeepsItsLastSavedState() throws {
        let workspace = try Self.workspace("crashed-worker")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["SAVED_STATE", "HOSTILE_STATE=\"first\""])
        _ = try Self.run(workspace, "process", urls: 1)
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins,
                                   ["SAVED_STATE", "HOSTILE_STATE=\"second\"", "SEGV_AT=AT_OPEN_URL", "HOSTILE_PRIORITY=10"])
        let result = try Self.run(workspace, "process", urls: 1)
        #expect(result.status == 5, "\(result.output)")
        #expect(Self.logs(result, of: Self.hostile).contains("restored: first"))
        #expect(try Self.entries(result, "save").map(\.plugin.rawValue) == [Self.counter], "\(result.output)")
        #expect(try Self.shownState(workspace, Self.hostile) == "first")
        #expect(try Self.shownState(workspace, Self.counter) == "count 2", "the other library saved as usual")
    }

    /// Each state is written as soon as its plugin gives it: a run killed while a later plugin takes
    /// its time in save_state has written the states before (all were written after the last, before).
    @Test func aStateIsWrittenBeforeTheNextPluginIsAsked() throws {
        let workspace = try Self.workspace("written-at-once")
        defer { workspace.remove() }
        _ = try Self.run(workspace, "process", urls: 1)
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["SAVED_STATE", "SPIN_AT=AT_SAVE_STATE", "HOSTILE_PRIORITY=-10"])
        let mark = LeftoverProcesses.mark()
        let process = try LiveProcess(try CLI.binary(), ["run", "--isolation", "process", "--call-timeout", "60", "--open-url", "myapp://x",
                                                         "--plugin-dir", workspace.plugins, "--container", workspace.root.file("container"),
                                                         "--events", "-"],
                                      environment: TestPaths.hermeticEnvironment.merging(mark) { _, marked in marked })
        defer { process.stop() }
        try #require(process.waitForOutput(containing: "open-url myapp://x → ", timeout: .seconds(60)), "\(process.output)")
        process.closeInput()
        // Now the counter saves "count 2", then the hostile plugin spins in save_state for up to 60 s.
        let deadline = ContinuousClock.now + .seconds(30)
        var shown = try Self.shownState(workspace, Self.counter)
        while shown != "count 2" && ContinuousClock.now < deadline {
            usleep(100_000)
            shown = try Self.shownState(workspace, Self.counter)
        }
        #expect(shown == "count 2", "the counter's state was not written while the next plugin saved:\n\(process.output)")
        process.stop()
        #expect(LeftoverProcesses.noneLeft(mark, host: process.pid), "the killed run's workers outlived it")
    }

    @Test func aRestartedWorkersPluginGetsItsSavedStateBack() throws {
        let workspace = try Self.workspace("restarted-worker", counterVersion: nil)
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["SAVED_STATE", "HOSTILE_STATE=\"first\""])
        _ = try Self.run(workspace, "process")
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins,
                                   ["SAVED_STATE", "HOSTILE_STATE=\"second\"", "SEGV_AT=AT_OPEN_URL"])
        let result = try Self.run(workspace, "process", urls: 1, ["--restart", "1"])
        #expect(result.status == 5, "\(result.output)")
        let logs = Self.logs(result, of: Self.hostile)
        #expect(logs.filter { $0 == "restored: first" }.count == 2, "at launch and after the restart: \(logs)")
        #expect(logs.contains("restored its saved state (5 bytes) after the restart"), "\(logs)")
        #expect(try Self.shownState(workspace, Self.hostile) == "second", "the restarted plugin saved at will-terminate")
    }

    @Test func aWorkerThatCrashesInRestoreAgainAfterItsRestartKeepsItsLastSavedState() throws {
        let workspace = try Self.workspace("restart-restore-crash")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["SAVED_STATE", "HOSTILE_STATE=\"first\""])
        _ = try Self.run(workspace, "process", urls: 1)
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins,
                                   ["SAVED_STATE", "HOSTILE_STATE=\"second\"", "SEGV_AT=AT_RESTORE_STATE"])
        let result = try Self.run(workspace, "process", urls: 1, ["--restart", "1"])
        #expect(result.status == 5, "\(result.output)")
        #expect(result.output.contains("restarted the worker of"), "\(result.output)")
        // Restored again in the restarted worker, it crashed again: no restart left, withdrawn, not asked.
        #expect(Self.logs(result, of: Self.hostile).contains { $0.hasPrefix("restarted without its saved state:") }, "\(result.output)")
        #expect(try Self.entries(result, "save").allSatisfy { $0.plugin.rawValue != Self.hostile }, "\(result.output)")
        #expect(try Self.shownState(workspace, Self.hostile) == "first", "a fresh state never replaces the saved one")
        #expect(try Self.shownState(workspace, Self.counter) == "count 2", "the other library saved as usual")
    }

    @Test func aCrashInRestoreIsThatPluginsFailureAlone() throws {
        let workspace = try Self.workspace("crashed-restore")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["SAVED_STATE", "HOSTILE_PRIORITY=-10"])
        _ = try Self.run(workspace, "process", urls: 1)
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["SAVED_STATE", "HOSTILE_PRIORITY=-10", "SEGV_AT=AT_RESTORE_STATE"])
        let result = try Self.run(workspace, "process", urls: 1)
        #expect(result.status == 5, "\(result.output)")
        let restore = try Self.entries(result, "restore")
        #expect(restore.map(\.outcome.rawValue) == ["restored", "refused"], "\(result.output)")
        #expect(restore.last?.warning?.contains("com.example.hostile crashed with SIGSEGV in restore_state") == true)
        #expect(Self.logs(result, of: Self.counter) == ["restored count 1 (saved by 1.0)", "count 2"])
        #expect(try Self.shownState(workspace, Self.hostile) == "hostile state", "its file stays")
    }
}
