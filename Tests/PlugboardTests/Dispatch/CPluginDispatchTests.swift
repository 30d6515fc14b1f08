import Testing
@testable import Plugboard

/// The same policies through real C plugins: compiled, dlopened, called through the C-ABI adapter,
/// and composed with built-in Swift plugins behind one dispatcher.
@Suite struct CPluginDispatchTests {
    /// A host over freshly compiled fixtures, with every log line collected.
    private struct Setup {
        let directory: TemporaryDirectory
        let host: PluginHost
        let log: CallLog
        let reports: [LoadReport]

        init(_ plugins: [(String, [String])], builtIns: (CallLog) throws -> [any ApplicationPlugin] = { _ in [] }) throws {
            directory = try TemporaryDirectory()
            for (file, definitions) in plugins { try PluginCompiler.fixture(file, in: directory, definitions) }
            let log = CallLog()
            self.log = log
            host = PluginHost { record in log.record("\(record.plugin ?? "-") \(record.message)") }
            for plugin in try builtIns(log) { try host.register(plugin) }
            reports = host.loadPlugins(from: PluginSearchPath(explicit: [directory.path]))
        }

        func finish() {
            host.shutdown()
            directory.remove()
        }
    }

    @Test func aCPluginVetoStillLetsTheNextCPluginRun() throws {
        let setup = try Setup([
            ("a.so", [#"FIX_ID="com.c.veto""#, "FIX_PRIORITY=5", "FIX_LAUNCH=0"]),
            ("b.so", [#"FIX_ID="com.c.yes""#, "FIX_PRIORITY=1", "FIX_LAUNCH=1"]),
        ])
        defer { setup.finish() }
        #expect(setup.reports.map(\.status) == [.loaded, .loaded])
        let report = setup.host.willFinishLaunching()
        #expect(report.answer == .bool(false))
        #expect(report.decidedBy.map(\.rawValue) == ["com.c.veto"])
        #expect(setup.log.all == ["com.c.veto will-finish-launching", "com.c.yes will-finish-launching"])
    }

    @Test func builtInAndLoadedPluginsShareOneOrder() throws {
        let setup = try Setup([
            ("c.so", [#"FIX_ID="com.c.mid""#, "FIX_PRIORITY=5", "FIX_TERMINATE", "FIX_OPEN_URL=0"]),
        ]) { log in
            [try ScriptedPlugin("com.swift.high", priority: 9, log: log),
             try ScriptedPlugin("com.swift.low", priority: 1, log: log)]
        }
        defer { setup.finish() }
        #expect(setup.host.plugins.map(\.descriptor.id.rawValue) == ["com.swift.high", "com.c.mid", "com.swift.low"])
        #expect(setup.host.plugins.map(\.source) == [.builtIn, .library(path: setup.directory.file("c.so")), .builtIn])
        #expect(setup.host.willTerminate().calls.map(\.plugin.rawValue) == ["com.swift.low", "com.c.mid", "com.swift.high"])
        let url = setup.host.open(url: "myapp://x")
        #expect(url.calls.map(\.plugin.rawValue) == ["com.swift.high", "com.c.mid", "com.swift.low"])
        #expect(setup.log.all.contains("com.c.mid open-url myapp://x"))
    }

    @Test func aCPluginGetsTheArgumentsAndAnswersFirstTrue() throws {
        let setup = try Setup([
            ("a.so", [#"FIX_ID="com.c.first""#, "FIX_PRIORITY=2", "FIX_OPEN_URL=1", "FIX_ACTIVITY=1"]),
            ("b.so", [#"FIX_ID="com.c.second""#, "FIX_PRIORITY=1", "FIX_OPEN_URL=1", "FIX_ACTIVITY=1"]),
        ])
        defer { setup.finish() }
        let report = setup.host.open(url: "myapp://item/42")
        #expect(report.decidedBy.map(\.rawValue) == ["com.c.first"])
        #expect(report.calls.count == 1)
        #expect(setup.host.continueUserActivity(type: "com.example.view").decidedBy.map(\.rawValue) == ["com.c.first"])
        #expect(setup.log.all == ["com.c.first open-url myapp://item/42", "com.c.first continue-user-activity"])
    }

    @Test func cCompletionsNeverTwiceLateAndInvalidAreHandled() throws {
        let setup = try Setup([
            ("never.so", [#"FIX_ID="com.c.never""#, "FIX_FETCH=PB_FETCH_NEW_DATA", "FIX_FETCH_MODE=1"]),
            ("twice.so", [#"FIX_ID="com.c.twice""#, "FIX_FETCH=PB_FETCH_FAILED", "FIX_FETCH_MODE=2"]),
            ("thread.so", [#"FIX_ID="com.c.thread""#, "FIX_FETCH=PB_FETCH_NO_DATA", "FIX_FETCH_MODE=3", "FIX_FETCH_DELAY_MS=20"]),
            ("invalid.so", [#"FIX_ID="com.c.invalid""#, "FIX_FETCH=PB_FETCH_NEW_DATA", "FIX_FETCH_MODE=4"]),
            ("absent.so", [#"FIX_ID="com.c.absent""#, "FIX_BROADCASTS"]),
        ])
        defer { setup.finish() }
        #expect(setup.reports.allSatisfy { $0.status == .loaded })
        let report = setup.host.didReceiveRemoteNotification(userInfo: #"{"aps":{}}"#, deadline: .milliseconds(300))
        let answers = Dictionary(uniqueKeysWithValues: report.calls.map { ($0.plugin.rawValue, $0.answer) })
        #expect(answers == ["com.c.never": .timedOut, "com.c.twice": .fetch(.failed), "com.c.thread": .fetch(.noData),
                            "com.c.invalid": .timedOut, "com.c.absent": .notTakingPart])
        #expect(report.answer == .fetch(.noData))
        #expect(report.notes.contains { $0.contains("com.c.twice answered the remote notification twice") })
        #expect(report.notes.contains { $0.contains("com.c.invalid answered with 77") })
    }

    @Test func cBroadcastsArriveInOrderAndDeinitRunsAtShutdown() throws {
        let setup = try Setup([
            ("x.so", [#"FIX_ID="com.c.x""#, "FIX_PRIORITY=1", "FIX_BROADCASTS", "FIX_TERMINATE"]),
            ("y.so", [#"FIX_ID="com.c.y""#, "FIX_PRIORITY=2", "FIX_BROADCASTS", "FIX_TERMINATE"]),
        ])
        defer { setup.directory.remove() }
        setup.host.didRegisterForRemoteNotifications(deviceToken: [0xA1, 0xB2])
        setup.host.didFailToRegisterForRemoteNotifications(error: "offline")
        setup.host.didReceiveMemoryWarning()
        setup.host.protectedDataWillBecomeUnavailable()
        setup.host.protectedDataDidBecomeAvailable()
        setup.host.didBecomeActive()
        setup.host.willResignActive()
        setup.host.didEnterBackground()
        setup.host.willEnterForeground()
        setup.host.willTerminate()
        setup.host.shutdown()
        let events = ["register-token", "register-failed", "memory-warning", "protected-data-will-become-unavailable",
                      "protected-data-did-become-available", "did-become-active", "will-resign-active",
                      "did-enter-background", "will-enter-foreground"]
        #expect(setup.log.all == events.flatMap { ["com.c.y \($0)", "com.c.x \($0)"] }
                + ["com.c.x will-terminate", "com.c.y will-terminate", "- deinit", "- deinit"])
    }

    @Test func twoHostsShareALibraryAndTheLastOneDeinitializesIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try PluginCompiler.fixture("shared.so", in: directory, [#"FIX_ID="com.c.shared""#, "FIX_TERMINATE"])
        let log = CallLog()
        let first = PluginHost { log.record("first \($0.message)") }
        let second = PluginHost { log.record("second \($0.message)") }
        #expect(first.loadLibrary(at: directory.file("shared.so")).status == .loaded)
        #expect(second.loadLibrary(at: directory.file("shared.so")).status == .loaded)
        first.shutdown()
        #expect(!log.all.contains { $0.hasSuffix("deinit") })
        second.willTerminate()
        second.shutdown()
        #expect(log.all == ["second will-terminate", "second deinit"])
    }
}
