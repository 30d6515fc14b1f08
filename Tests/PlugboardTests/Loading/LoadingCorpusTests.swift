import Foundation
import Glibc
import Testing
@testable import Plugboard

/// The bad-plugin corpus, loaded in this process: each bad file sits between two
/// good plugins; the bad one gets one clear line naming its stage and cause, and
/// the good ones still load and receive events.
@Suite struct LoadingCorpusTests {
    /// A host that records what its plugins log.
    static func makeHost(_ logs: LogCollector) -> PluginHost {
        PluginHost { record in
            logs.append(source: record.source, plugin: record.plugin, level: record.level.rawValue, message: record.message)
        }
    }

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
        let logs = LogCollector()
        let host = Self.makeHost(logs)
        defer { host.shutdown() }

        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [folder.plugins]))
        try #require(reports.map(\.path) == folder.expectedPaths, "reports: \(reports.map(\.path))")

        // The bad file: its status, stage, and a one-line message with the key words.
        let report = reports[1]
        let summary = "\(report.status) \(report.failure.map(String.init(describing:)) ?? "no failure") refused: \(report.refused)"
        #expect(report.status.rawValue == expected.status, "\(summary)")
        if let stage = expected.stage {
            let failure = try #require(report.failure, "\(summary)")
            #expect(failure.stage.rawValue == stage, "\(summary)")
            for word in expected.keywords {
                #expect(failure.message.contains(word), "message lacks \(String(reflecting: word)): \(failure.message)")
            }
            #expect(!failure.description.contains("\n"), "not one line: \(failure.description)")
            for word in expected.systemKeywords {
                #expect(failure.systemError?.contains(word) == true,
                        "system error lacks \(String(reflecting: word)): \(failure.systemError ?? "nil")")
            }
            #expect(report.plugins.isEmpty, "\(report.plugins.map(\.descriptor.id))")
        } else {
            #expect(report.failure == nil, "\(summary)")
        }
        #expect(report.plugins.map(\.descriptor.id.rawValue) == expected.registeredIDs, "\(summary)")
        if !expected.refusalKeywords.isEmpty {
            try #require(report.refused.count == 1, "\(summary)")
            for word in expected.refusalKeywords {
                #expect(report.refused[0].failure.message.contains(word),
                        "refusal lacks \(String(reflecting: word)): \(report.refused[0].failure.message)")
            }
            #expect(report.refused[0].failure.stage == .register)
        }
        if let deinitRan = expected.deinitDuringLoad {
            let messages = logs.libraryMessages(source: expected.path)
            #expect(messages.contains("deinit") == deinitRan, "library messages: \(messages)")
        }

        // The good plugins next to it loaded, and events reach them (and only them).
        for index in [0, 2] {
            #expect(reports[index].status == .loaded, "\(reports[index].path): \(String(describing: reports[index].failure))")
        }
        #expect(reports[0].plugins.map(\.descriptor.id.rawValue) == [GoodPlugins.firstID])
        #expect(reports[2].plugins.map(\.descriptor.id.rawValue) == [GoodPlugins.lastID])
        #expect(host.plugins.map(\.descriptor.id.rawValue).sorted() == (GoodPlugins.ids + expected.registeredIDs).sorted())

        logs.clear()
        let warning = host.didReceiveMemoryWarning()
        #expect(warning.calls.map(\.plugin.rawValue) == GoodPlugins.ids)
        let launch = host.willFinishLaunching()
        #expect(launch.accepted == true)
        #expect(launch.calls.map(\.plugin.rawValue) == GoodPlugins.ids)
        for id in GoodPlugins.ids {
            #expect(logs.messages(plugin: id) == ["memory-warning", "will-finish-launching"], "logs: \(logs.all)")
        }
        host.willTerminate()
    }
}

/// Directories, symlinks, order: how files are found before any is opened.
@Suite struct LoadingScanTests {
    @Test func missingDirectoryIsReportedAndTheNextDirectoryStillLoads() throws {
        let root = try TemporaryDirectory("plugboard-scan")
        defer { root.remove() }
        try GoodPlugins.build(in: root.path)
        let missing = root.file("does-not-exist")
        let logs = LogCollector()
        let host = LoadingCorpusTests.makeHost(logs)
        defer { host.shutdown() }

        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [missing, root.path]))
        try #require(reports.count == 3, "\(reports.map(\.path))")
        #expect(reports[0].path == missing)
        #expect(reports[0].status == .failed)
        #expect(reports[0].failure?.stage == .scan)
        #expect(reports[0].failure?.message.contains("does not exist") == true, "\(String(describing: reports[0].failure))")
        #expect(reports[1...].map(\.status) == [.loaded, .loaded])
        #expect(host.didBecomeActive().calls.map(\.plugin.rawValue) == GoodPlugins.ids)
        #expect(logs.messages(plugin: GoodPlugins.firstID) == ["did-become-active"])
    }

    @Test func fileGivenAsDirectoryIsReported() throws {
        let root = try TemporaryDirectory("plugboard-scan")
        defer { root.remove() }
        try root.write("not-a-dir", "x")
        let host = PluginHost()
        defer { host.shutdown() }
        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [root.file("not-a-dir")]))
        try #require(reports.count == 1)
        #expect(reports[0].failure?.stage == .scan)
        #expect(reports[0].failure?.message.contains("not a directory") == true, "\(String(describing: reports[0].failure))")
    }

    /// Only an entry its folder lists as a regular file is opened before its status is known: a FIFO
    /// named like a library, and a link to one, are refused as not regular files, and nothing waits
    /// for a writer to open their other end.
    @Test func aFIFONamedLikeALibraryIsRefusedWithoutBlocking() throws {
        let root = try TemporaryDirectory("plugboard-scan")
        defer { root.remove() }
        try PluginCompiler.lenientFixture("a.so", in: root.path, GoodPlugins.definitions(id: "com.fifo.neighbour"))
        #expect(mkfifo(root.file("b.so"), 0o644) == 0)
        #expect(symlink("b.so", root.file("c.so")) == 0)
        let host = LoadingCorpusTests.makeHost(LogCollector())
        defer { host.shutdown() }

        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [root.path]))
        try #require(reports.count == 3, "\(reports.map(\.path))")
        #expect(reports[0].status == .loaded)
        for report in reports.dropFirst() {
            #expect(report.status == .failed)
            #expect(report.failure?.message == "not a regular file", "\(report.path): \(String(describing: report.failure))")
        }
    }

    @Test func symlinkToALoadedFileIsSkipped() throws {
        let root = try TemporaryDirectory("plugboard-scan")
        defer { root.remove() }
        try PluginCompiler.lenientFixture("a.so", in: root.path, GoodPlugins.definitions(id: "com.same.file"))
        #expect(symlink("a.so", root.file("b.so")) == 0)
        let logs = LogCollector()
        let host = LoadingCorpusTests.makeHost(logs)
        defer { host.shutdown() }

        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [root.path]))
        try #require(reports.count == 2, "\(reports.map(\.path))")
        #expect(reports[0].status == .loaded)
        #expect(reports[1].path == root.file("b.so"))
        #expect(reports[1].status == .skipped)
        #expect(reports[1].sameFileAs == root.file("a.so"))
        #expect(reports[1].failure == nil)
        #expect(host.plugins.count == 1)
        #expect(host.didReceiveMemoryWarning().calls.count == 1)
        #expect(logs.messages(plugin: "com.same.file") == ["memory-warning"])
    }

    @Test func sameDirectoryTwiceLoadsEachFileOnce() throws {
        let root = try TemporaryDirectory("plugboard-scan")
        defer { root.remove() }
        try GoodPlugins.build(in: root.path)
        let host = PluginHost()
        defer { host.shutdown() }

        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [root.path, root.path + "/"]))
        try #require(reports.count == 4, "\(reports.map(\.path))")
        #expect(reports.map(\.status) == [.loaded, .loaded, .skipped, .skipped])
        #expect(reports[2].sameFileAs == reports[0].path)
        #expect(reports[3].sameFileAs == reports[1].path)
        #expect(host.plugins.count == 2)
    }

    /// A file is loaded once however often it is found: this holds for a bad file
    /// too, whose `init` must not run a second time through a second name.
    @Test func badFileReachedTwiceIsTriedOnce() throws {
        let root = try TemporaryDirectory("plugboard-scan")
        defer { root.remove() }
        try PluginCompiler.lenientFixture("a.so", in: root.path, ["FIX_ID=\"com.bad.init\"", "FIX_INIT_FAILS", "FIX_TERMINATE"])
        #expect(symlink("a.so", root.file("b.so")) == 0)
        let logs = LogCollector()
        let host = LoadingCorpusTests.makeHost(logs)
        defer { host.shutdown() }

        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [root.path]))
        try #require(reports.count == 2, "\(reports.map(\.path))")
        #expect(reports[0].status == .failed)
        #expect(reports[0].failure?.stage == .`init`)
        let initErrors = logs.all.filter { $0.message == "the fixture's init was told to fail" }
        #expect(initErrors.count == 1, "init ran \(initErrors.count) times for one file")
        #expect(reports[1].status == .skipped,
                "b.so is a.so, but was loaded again: \(String(describing: reports[1].failure))")
        #expect(reports[1].sameFileAs == root.file("a.so"))
    }

    @Test func filesAreScannedInByteOrderOfTheirNames() throws {
        let root = try TemporaryDirectory("plugboard-scan")
        defer { root.remove() }
        // Created in an order that is neither sorted nor reverse-sorted.
        let names = ["m.so", "_under.so", "Zed.so", "é.so", "a.so", "0.so", "B.so", "ab.so", "a-b.so", "z.so"]
        for name in names {
            if name == "m.so" {
                try PluginCompiler.lenientFixture(name, in: root.path, GoodPlugins.definitions(id: "com.order.m"))
            } else {
                try root.write(name, "text \(name)\n")
            }
        }
        try FileManager.default.createDirectory(atPath: root.file("dir.so"), withIntermediateDirectories: false)
        try root.write("readme.txt", "not a candidate")
        try root.write("so", "not a candidate")
        let host = PluginHost()
        defer { host.shutdown() }

        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [root.path]))
        let expected = names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map(root.file)
        #expect(expected.first == root.file("0.so") && expected.last == root.file("é.so"))
        #expect(reports.map(\.path) == expected)
        #expect(reports.filter { $0.status == .loaded }.map(\.path) == [root.file("m.so")])
    }
}

/// Loading facts that are not about a bad file.
@Suite struct LoadingContractTests {
    /// A plugin built for ABI 1.0 (no files service) loads in a 1.1 host.
    @Test func pluginBuiltForAnOlderMinorLoads() throws {
        #expect(ABIVersion.host.minor > 0)
        let root = try TemporaryDirectory("plugboard-contract")
        defer { root.remove() }
        let file = try PluginCompiler.lenientFixture("p.so", in: root.path, GoodPlugins.definitions(id: "com.minor.zero") + ["FIX_ABI_MINOR=0"])
        let host = PluginHost()
        defer { host.shutdown() }
        let report = host.loadLibrary(at: file)
        #expect(report.status == .loaded, "\(String(describing: report.failure))")
        #expect(report.abi?.version == ABIVersion(major: 1, minor: 0))
    }

    /// `pb_host_t.log` is valid until `deinit` returns, and the host's log handler
    /// "receives every message plugins log": a message logged in `deinit` should arrive.
    @Test func messageLoggedByDeinitReachesTheHost() throws {
        let root = try TemporaryDirectory("plugboard-contract")
        defer { root.remove() }
        let file = try PluginCompiler.lenientFixture("p.so", in: root.path, GoodPlugins.definitions(id: "com.deinit.logs"))
        let logs = LogCollector()
        let host = LoadingCorpusTests.makeHost(logs)
        let report = host.loadLibrary(at: file)
        try #require(report.status == .loaded, "\(String(describing: report.failure))")
        host.willTerminate()
        host.shutdown()
        #expect(logs.libraryMessages(source: file) == ["deinit"], "logs: \(logs.all)")
    }

    /// The same when the library is let go right after registering no plugin.
    @Test func messageLoggedByDeinitAfterNoPluginsReachesTheHost() throws {
        let root = try TemporaryDirectory("plugboard-contract")
        defer { root.remove() }
        let file = try PluginCompiler.lenientFixture("p.so", in: root.path, ["FIX_ID=\"com.bad.none\"", "FIX_NO_PLUGINS"])
        let logs = LogCollector()
        let host = LoadingCorpusTests.makeHost(logs)
        defer { host.shutdown() }
        let report = host.loadLibrary(at: file)
        try #require(report.status == .failed)
        #expect(logs.libraryMessages(source: file) == ["deinit"], "logs: \(logs.all)")
    }
}
