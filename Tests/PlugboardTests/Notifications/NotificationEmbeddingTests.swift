import Foundation
import Synchronization
import Testing
@testable import Plugboard

/// The bus in the embedding API, with real plugins: the host's own observers and posts, posts a
/// plugin thread makes between events, and a thread that goes on posting after its library's `deinit`.
@Suite struct NotificationEmbeddingTests {
    static let isolations: [PluginIsolation] = [.workers(worker: TestPaths.worker), .inProcess]

    @Test(arguments: isolations)
    func theHostsObserversRunAfterThePluginsAndItsPostsReachThem(isolation: PluginIsolation) throws {
        let workspace = try Workspace("bus-embedding")
        defer { workspace.remove() }
        let library = try NotificationRunTests.busPlugin("listener.so", in: workspace, ["BUS_ID=\"com.example.listener\"",
                                                                                        "BUS_OBSERVE=\"com.example.news\""])
        let logged = Mutex<[String]>([])
        let host = PluginHost(callTimeout: .seconds(30), isolation: isolation,
                              logHandler: { record in logged.withLock { $0.append(record.message) } })
        defer { host.shutdown() }
        #expect(host.loadLibrary(at: library).status == .loaded)
        #expect(host.willFinishLaunching().notifications.isEmpty)
        let received = Mutex<[PluginNotification]>([])
        let token = try host.observe("com.example.news") { notification in received.withLock { $0.append(notification) } }
        try host.post("com.example.news", payload: #"{"k":1}"#)
        let report = host.deliverNotifications()
        #expect(report.deliveries.map(\.receiver) == ["com.example.listener", "plugboard"])
        #expect(received.withLock { $0 } == [PluginNotification(name: "com.example.news", payload: #"{"k":1}"#, sender: "plugboard")])
        #expect(logged.withLock { $0 }.contains(#"received com.example.news {"k":1} from plugboard"#), "\(logged.withLock { $0 })")

        host.stopObserving(token)
        try host.post("com.example.news")
        #expect(host.didReceiveMemoryWarning().notifications.deliveries.map(\.receiver) == ["com.example.listener"],
                "an event delivers what was posted before it")
        #expect(throws: NotificationRefusal.self) { try host.post("com.example.news", payload: "[]") }
        let trailingComma = #expect(throws: NotificationRefusal.self) { try host.post("com.example.news", payload: #"{"k":1,}"#) }
        #expect(trailingComma?.description
                == #"post com.example.news: the payload is not a JSON object: {"k":1,} (line 1, column 8: a trailing comma before '}')"#)
        let badName = #expect(throws: NotificationRefusal.self) { try host.observe("news") { _ in } }
        #expect(badName?.status == -1, "PB_ERR_INVALID_ARGUMENT, as a C plugin's call gets")
    }

    @Test(arguments: isolations)
    func nothingALibraryObservesOrPostsInItsDeinitOutlivesShutdown(isolation: PluginIsolation) throws {
        let workspace = try Workspace("bus-deinit")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("deinit.so", in: workspace.plugins, ["POST_LOOP_AT=AT_DEINIT"])
        let host = PluginHost(callTimeout: .seconds(30), isolation: isolation, logHandler: { _ in })
        #expect(host.loadLibrary(at: library).status == .loaded)
        host.willFinishLaunching()
        host.shutdown()
        let report = host.deliverNotifications()
        #expect(report.isEmpty, "an observer of an unloaded library, or its post, was left: \(report)")
    }

    @Test func aLibraryUnloadedInItsWorkerObservesNothingOnceLoadedAgain() throws {
        let workspace = try Workspace("bus-unload-in-worker")
        defer { workspace.remove() }
        let library = try NotificationRunTests.busPlugin("listener.so", in: workspace, ["BUS_ID=\"com.example.listener\"",
                                                                                        "BUS_OBSERVE=\"com.example.news\""])
        let harness = WorkerHarness(library: library, worker: TestPaths.worker, callTimeout: .seconds(30))
        let host = harness.host
        #expect(harness.report.status == .loaded)
        host.willFinishLaunching()
        #expect((try? harness.unload(linger: .zero).get()) != nil)
        #expect(harness.loadAgain().status == .loaded)
        // Loaded again, the library has not observed yet (it does so in will-finish-launching).
        try host.post("com.example.news")
        let report = host.deliverNotifications()
        #expect(report.deliveries.isEmpty && report.unobserved.map(\.name) == ["com.example.news"], "\(report)")
    }

    /// A plugin thread started in `init` posts from then on: refused until its library registered
    /// in the worker, then held by the host until the host registered the library too, and
    /// delivered with the next event. Its worker is not taken for a forger (its posts reached the
    /// host before its load's answer had been taken).
    @Test func aThreadPostingFromInitIsNotTakenForAForger() throws {
        let workspace = try Workspace("bus-from-init")
        defer { workspace.remove() }
        // Every 0.2 ms: posts fall between the worker's registration and the host's.
        let library = try PluginCompiler.hostile("early.so", in: workspace.plugins,
                                                 ["STRAY_POST_THREAD_AT=AT_INIT", "STRAY_POST_INTERVAL_NS=200000"])
        for _ in 0..<5 {
            let host = PluginHost(isolation: .workers(worker: TestPaths.worker))
            defer { host.shutdown() }
            let report = host.loadLibrary(at: library)
            #expect(report.status == .loaded, "\(report)")
            // The thread posts every 10 ms: its posts reach the host's next deliveries.
            var delivered = false
            for _ in 0..<500 where !delivered {
                usleep(10_000)
                delivered = host.deliverNotifications().unobserved.contains { $0.name == "com.example.stray" }
            }
            #expect(delivered && host.failures.isEmpty, "\(host.failures)")
        }
    }

    /// A bus call forged while the library loads (on behalf of another library's plugin) is found
    /// when the host registers the library: its worker ends and the load fails, naming the forgery.
    @Test func aCallForgedWhileLoadingFailsTheLoad() throws {
        let workspace = try Workspace("bus-forged-load")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("forger.so", in: workspace.plugins, ["FORGE_SENDER_AT=AT_REGISTER"])
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker))
        defer { host.shutdown() }
        let report = host.loadLibrary(at: library)
        #expect(report.status == .failed && report.failure?.message.contains("on behalf of 'com.example.victim'") == true,
                "\(report)")
        #expect(host.plugins.isEmpty)
    }

    @Test func aThreadPostingAfterDeinitIsIgnoredAndCounted() throws {
        let workspace = try Workspace("bus-after-deinit")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("stray.so", in: workspace.plugins, ["STRAY_POST_THREAD_AT=AT_WILL_FINISH"])
        let logged = Mutex<[String]>([])
        // After deinit no host listens in the worker: the warning comes as a line the worker prints.
        let harness = WorkerHarness(library: library, worker: TestPaths.worker, callTimeout: .seconds(30),
                                    logHandler: { record in logged.withLock { $0.append(record.message) } },
                                    outputHandler: { line in logged.withLock { $0.append(line.text) } })
        let host = harness.host
        #expect(harness.report.status == .loaded)
        host.willFinishLaunching()
        // The thread posts every 10 ms; a post between events waits for the next delivery.
        var unobserved = 0
        for _ in 0..<500 where unobserved == 0 {
            usleep(10_000)
            unobserved = host.deliverNotifications().unobserved.filter { $0.name == "com.example.stray" && $0.sender == "com.example.hostile" }.count
        }
        #expect(unobserved > 0)
        let census = try harness.unload(linger: .milliseconds(500)).get()
        #expect(census.callsAfterDeinit >= 1, "\(census)")
        let warned = { logged.withLock { $0 }.contains { $0.hasSuffix("called post after its deinit; ignored (reported once)") } }
        for _ in 0..<500 where !warned() { usleep(10_000) }
        #expect(warned(), "\(logged.withLock { $0 })")
    }
}
