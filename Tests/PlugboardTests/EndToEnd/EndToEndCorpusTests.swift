import Foundation
import Glibc
import Testing
@testable import Plugboard

/// The bad-plugin corpus through the real binary: `list --json` reports each bad
/// file with its stage and cause, and `run` prints it on one line while the good
/// plugins next to it load and receive events.
@Suite struct EndToEndCorpusTests {
    @Test(arguments: BadPlugin.alwaysAvailable)
    func badFileNextToGoodPlugins(_ bad: BadPlugin) throws {
        try check(bad)
    }

    @Test(.enabled(if: SystemLibrary.zlib != nil, "no libz.so.1 found (looked in the usual directories and `ldconfig -p`)"))
    func systemLibraryWithoutEntrySymbol() throws {
        try check(.systemLibraryWithoutEntry)
    }

    @Test(.enabled(if: CrossCompiler.unavailableReason == nil, Comment(rawValue: CrossCompiler.unavailableReason ?? "")))
    func libraryCrossCompiledForAnotherMachine() throws {
        try check(.crossCompiledForeignMachine)
    }

    private func check(_ bad: BadPlugin) throws {
        let folder = try CorpusFolder(bad)
        defer { folder.root.remove() }
        let expected = folder.expectation
        let failed = expected.status == "failed"

        // list --json
        let list = try CLI.run(["list", "--plugin-dir", folder.plugins, "--json"])
        #expect(list.status == (failed ? 1 : 0), "exit \(list.status)\n\(list.output)\n\(list.errorOutput)")
        let libraries = try CLI.libraries(list)
        try #require(libraries.map { $0.string("path") ?? "?" } == folder.expectedPaths, "\(list.output)")
        let report = libraries[1]
        #expect(report.string("status") == expected.status, "\(report)")
        if let stage = expected.stage {
            let failure = try #require(report.object("failure"), "\(report)")
            #expect(failure.string("stage") == stage, "\(failure)")
            let message = failure.string("message") ?? ""
            for word in expected.keywords {
                #expect(message.contains(word), "message lacks \(String(reflecting: word)): \(message)")
            }
            for word in expected.systemKeywords {
                #expect(failure.string("systemError")?.contains(word) == true, "\(failure)")
            }
        } else {
            #expect(report["failure"] == nil, "\(report)")
        }
        let registered = (report.objects("plugins") ?? []).compactMap { $0.object("descriptor")?.string("id") }
        #expect(registered == expected.registeredIDs, "\(report)")
        if !expected.refusalKeywords.isEmpty {
            let refused = report.objects("refused") ?? []
            try #require(refused.count == 1, "\(report)")
            let message = refused[0].object("failure")?.string("message") ?? ""
            for word in expected.refusalKeywords {
                #expect(message.contains(word), "refusal lacks \(String(reflecting: word)): \(message)")
            }
        }
        for (index, id) in [(0, GoodPlugins.firstID), (2, GoodPlugins.lastID)] {
            #expect(libraries[index].string("status") == "loaded", "\(libraries[index])")
            let ids = (libraries[index].objects("plugins") ?? []).compactMap { $0.object("descriptor")?.string("id") }
            #expect(ids == [id], "\(libraries[index])")
        }

        // run, human output: one FAILED line naming stage and cause; the good plugins get the event.
        try folder.root.write("events.jsonl", #"{"event":"memory-warning"}"# + "\n")
        let run = try CLI.run(["run", "--plugin-dir", folder.plugins, "--events", folder.root.file("events.jsonl")])
        #expect(run.status == (failed ? 4 : 0), "exit \(run.status)\n\(run.output)\n\(run.errorOutput)")
        let lines = run.output.split(separator: "\n").map(String.init)
        if let stage = expected.stage {
            let prefix = "FAILED   \(expected.path): \(stage): "
            let failedLines = lines.filter { $0.hasPrefix("FAILED   \(expected.path):") }
            try #require(failedLines.count == 1, "\(run.output)")
            #expect(failedLines[0].hasPrefix(prefix), "\(failedLines[0])")
            for word in expected.keywords + expected.systemKeywords {
                #expect(failedLines[0].contains(word), "FAILED line lacks \(String(reflecting: word)): \(failedLines[0])")
            }
            #expect(lines.contains("3 file(s): 2 loaded, 1 failed, 0 skipped; 2 plugin(s)"), "\(run.output)")
        } else {
            #expect(lines.contains("loaded   \(expected.path)  (ABI \(ABIVersion.host))"), "\(run.output)")
            #expect(lines.contains { $0.hasPrefix("           refused com.bad.twice: register: ") && $0.contains("added it twice") },
                    "\(run.output)")
            #expect(lines.contains("3 file(s): 3 loaded, 0 failed, 0 skipped; 3 plugin(s)"), "\(run.output)")
        }
        #expect(lines.contains { $0.hasPrefix("memory-warning → delivered  [2 call(s)") }, "\(run.output)")
        let logs = CLI.pluginLogs(run.output)
        for id in GoodPlugins.ids {
            #expect(logs.filter { $0.hasPrefix(id + ":") }
                        == ["\(id): will-finish-launching", "\(id): did-finish-launching", "\(id): memory-warning", "\(id): will-terminate"],
                    "\(run.output)")
        }
    }
}

/// Reading permission, the same file twice, and the order of files, through the binary.
@Suite struct EndToEndLoadingTests {
    /// A folder nobody can read one file of; the folder itself is open to everyone.
    private func unreadableSetup() throws -> (Workspace, readable: String, unreadable: String) {
        let workspace = try Workspace("perm")
        do {
            #expect(chmod(workspace.root.path, 0o755) == 0)
            #expect(chmod(workspace.plugins, 0o755) == 0)
            let readable = try workspace.plugin("a_readable.so", GoodPlugins.definitions(id: "com.perm.readable"))
            let unreadable = try workspace.plugin("b_unreadable.so", GoodPlugins.definitions(id: "com.perm.secret"))
            #expect(chmod(readable, 0o755) == 0)
            #expect(chmod(unreadable, 0) == 0)
            return (workspace, readable, unreadable)
        } catch {
            workspace.remove()
            throw error
        }
    }

    private func checkUnreadable(_ list: ProcessResult, readable: String, unreadable: String) throws {
        #expect(list.status == 1, "exit \(list.status)\n\(list.output)\n\(list.errorOutput)")
        let libraries = try CLI.libraries(list)
        try #require(libraries.count == 2, "\(list.output)")
        #expect(libraries[0].string("path") == readable)
        #expect(libraries[0].string("status") == "loaded", "\(libraries[0])")
        #expect(libraries[1].string("path") == unreadable)
        #expect(libraries[1].string("status") == "failed", "\(libraries[1])")
        let failure = libraries[1].object("failure") ?? [:]
        #expect(failure.string("stage") == "open", "\(failure)")
        #expect(failure.string("systemError") == "Permission denied", "\(failure)")
    }

    static let nobodyReason = Comment(rawValue: "cannot run the binary as user nobody: " + (PrivilegeDrop.unavailableReason ?? ""))

    /// Root reads everything, so the unreadable file is made real by running the binary as nobody.
    @Test(.enabled(if: PrivilegeDrop.unavailableReason == nil, nobodyReason))
    func unreadableFileAsNobody() throws {
        let (workspace, readable, unreadable) = try unreadableSetup()
        defer { workspace.remove() }
        let (tool, arguments) = PrivilegeDrop.asNobody(try CLI.binary(), ["list", "--plugin-dir", workspace.plugins, "--json"])
        try checkUnreadable(try run(tool, arguments), readable: readable, unreadable: unreadable)

        // nobody cannot create the default container under root's home: give it one it may write.
        let container = NSTemporaryDirectory() + "/plugboard-nobody-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o777])
        defer { try? FileManager.default.removeItem(atPath: container) }
        let (runTool, runArguments) = PrivilegeDrop.asNobody(
            try CLI.binary(), ["run", "--plugin-dir", workspace.plugins, "--container", container + "/app"])
        let human = try run(runTool, runArguments)
        #expect(human.status == 4, "exit \(human.status)\n\(human.output)\n\(human.errorOutput)")
        #expect(human.output.contains("FAILED   \(unreadable): open: cannot read the file (Permission denied)\n"), "\(human.output)")
        #expect(CLI.pluginLogs(human.output).filter { $0.hasPrefix("com.perm.") } == ["com.perm.readable: will-finish-launching", "com.perm.readable: did-finish-launching",
                                                 "com.perm.readable: will-terminate"], "\(human.output)")
    }

    @Test(.enabled(if: !PrivilegeDrop.isRoot, "running as root: root reads any file; unreadableFileAsNobody covers it"))
    func unreadableFileAsCurrentUser() throws {
        let (workspace, readable, unreadable) = try unreadableSetup()
        defer { workspace.remove() }
        try checkUnreadable(try CLI.run(["list", "--plugin-dir", workspace.plugins, "--json"]),
                            readable: readable, unreadable: unreadable)
    }

    @Test func symlinkAndRepeatedDirectoryLoadEachFileOnce() throws {
        let workspace = try Workspace("same")
        defer { workspace.remove() }
        let a = try workspace.plugin("a.so", GoodPlugins.definitions(id: "com.same.file"))
        #expect(symlink("a.so", workspace.plugins + "/b.so") == 0)
        let b = workspace.plugins + "/b.so"

        let list = try CLI.run(["list", "--plugin-dir", workspace.plugins, "--plugin-dir", workspace.plugins, "--json"])
        #expect(list.status == 0, "exit \(list.status)\n\(list.output)")
        let libraries = try CLI.libraries(list)
        try #require(libraries.count == 4, "\(list.output)")
        #expect(libraries.map { $0.string("path") ?? "?" } == [a, b, a, b])
        #expect(libraries.map { $0.string("status") ?? "?" } == ["loaded", "skipped", "skipped", "skipped"])
        #expect(libraries[1...].map { $0.string("sameFileAs") } == [a, a, a])

        let run = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--plugin-dir", workspace.plugins])
        #expect(run.status == 0)
        #expect(run.output.contains("skipped  \(b): same file as \(a)\n"), "\(run.output)")
        #expect(run.output.contains("4 file(s): 1 loaded, 0 failed, 3 skipped; 1 plugin(s)"), "\(run.output)")
        #expect(CLI.pluginLogs(run.output).filter { $0.hasSuffix("will-finish-launching") }.count == 1, "\(run.output)")
    }

    @Test func filesAreListedInByteOrderOfTheirNames() throws {
        let workspace = try Workspace("order")
        defer { workspace.remove() }
        let names = ["z.so", "B.so", "a.so", "_u.so", "0.so", "ab.so", "a-b.so"]
        for name in names {
            try "text\n".write(toFile: workspace.plugins + "/" + name, atomically: false, encoding: .utf8)
        }
        let list = try CLI.run(["list", "--plugin-dir", workspace.plugins, "--json"])
        let libraries = try CLI.libraries(list)
        let expected = ["0.so", "B.so", "_u.so", "a-b.so", "a.so", "ab.so", "z.so"].map { workspace.plugins + "/" + $0 }
        #expect(libraries.map { $0.string("path") ?? "?" } == expected, "\(list.output)")
    }

    @Test func missingDirectoryIsReportedNextToAGoodOne() throws {
        let workspace = try Workspace("missing")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let missing = workspace.root.file("nope")

        let list = try CLI.run(["list", "--plugin-dir", missing, "--plugin-dir", workspace.plugins, "--json"])
        #expect(list.status == 1, "exit \(list.status)\n\(list.output)")
        let libraries = try CLI.libraries(list)
        try #require(libraries.count == 3, "\(list.output)")
        #expect(libraries[0].string("path") == missing)
        #expect(libraries[0].string("status") == "failed")
        #expect(libraries[0].object("failure")?.string("stage") == "scan")
        #expect(libraries[0].object("failure")?.string("message")?.contains("does not exist") == true, "\(libraries[0])")
        #expect(libraries[1...].map { $0.string("status") } == ["loaded", "loaded"])

        let run = try CLI.run(["run", "--plugin-dir", missing, "--plugin-dir", workspace.plugins])
        #expect(run.status == 4, "exit \(run.status)\n\(run.output)")
        #expect(run.output.contains("FAILED   \(missing): scan: the plugin directory does not exist"), "\(run.output)")
        #expect(CLI.eventNames(run.output) == ["will-finish-launching", "did-finish-launching", "will-terminate"], "\(run.output)")
        // The good plugin and the built-in files plugin.
        #expect(run.output.contains("will-finish-launching → true  [3 call(s)"), "\(run.output)")
    }

    /// The README: "The same file (device and inode) is loaded once" — a bad one too.
    @Test func badFileReachedTwiceIsReportedOnce() throws {
        let workspace = try Workspace("badtwice")
        defer { workspace.remove() }
        try workspace.plugin("a.so", ["FIX_ID=\"com.bad.init\"", "FIX_INIT_FAILS", "FIX_TERMINATE"])
        try GoodPlugins.build(in: workspace.plugins)
        let list = try CLI.run(["list", "--plugin-dir", workspace.plugins, "--plugin-dir", workspace.plugins, "--json"])
        let libraries = try CLI.libraries(list)
        try #require(libraries.count == 6, "\(list.output)")
        #expect(libraries.map { $0.string("status") ?? "?" } == ["failed", "loaded", "loaded", "skipped", "skipped", "skipped"],
                "the second a.so was loaded (and its init run) again:\n\(list.output)")
    }
}
