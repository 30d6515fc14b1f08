import Foundation
import Glibc
import Plugboard
@testable import plugboard
import Testing

/// The notification bus through the real `plugboard run`, with real plugins
/// (`Fixtures/bus_plugin.c`, `Fixtures/hostile_plugin.c`).
@Suite struct NotificationRunTests {
    /// Builds `Fixtures/bus_plugin.c` into `workspace.plugins/name` with the given `-D` definitions.
    @discardableResult
    static func busPlugin(_ name: String, in workspace: Workspace, _ definitions: [String]) throws -> String {
        try PluginCompiler.compile(TestPaths.fixtures + "/bus_plugin.c", to: workspace.plugins + "/" + name,
                                   flags: definitions.map { "-D" + $0 })
    }

    /// `plugboard run` over `workspace` in `isolation`, with `arguments` added.
    static func run(_ workspace: Workspace, _ isolation: String, _ arguments: [String]) throws -> ProcessResult {
        try CLI.run(["run", "--isolation", isolation, "--plugin-dir", workspace.plugins,
                     "--container", workspace.root.file("container")] + arguments)
    }

    static let isolations = ["process", "none"]

    @Test(arguments: isolations)
    func postsDuringACallbackAreDeliveredAfterItInPostingOrderToObserversInPriorityOrder(isolation: String) throws {
        let workspace = try Workspace("bus-order-\(isolation)")
        defer { workspace.remove() }
        try Self.busPlugin("a.so", in: workspace, ["BUS_ID=\"com.example.low\"", "BUS_PRIORITY=1", "BUS_OBSERVE=\"com.example.news\""])
        try Self.busPlugin("b.so", in: workspace, ["BUS_ID=\"com.example.high\"", "BUS_PRIORITY=9", "BUS_OBSERVE=\"com.example.news\"",
                                                   "BUS_OBSERVE_TWICE"])
        try Self.busPlugin("c.so", in: workspace, ["BUS_ID=\"com.example.poster\"", "BUS_POST=\"com.example.news\""])
        let result = try Self.run(workspace, isolation, ["--open-url", "myapp://x"])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        #expect(CLI.pluginLogs(result.output) == [
            "com.example.poster: posted", "com.example.poster: posted", "com.example.poster: open-url returns",
            "com.example.high: received com.example.news {\"n\":1} from com.example.poster",
            "com.example.high: received again com.example.news",
            "com.example.low: received com.example.news {\"n\":1} from com.example.poster",
            "com.example.high: received com.example.news {\"n\":2} from com.example.poster",
            "com.example.high: received again com.example.news",
            "com.example.low: received com.example.news {\"n\":2} from com.example.poster",
        ], "\(result.output)")
        let deliveries = result.output.split(separator: "\n").filter { $0.hasPrefix("    notification com.example.news") }
        #expect(deliveries.count == 6, "\(result.output)")
        #expect(deliveries.first?.contains("com.example.poster → com.example.high") == true, "\(result.output)")
    }

    @Test(arguments: isolations)
    func aPostFromAnotherThreadIsDeliveredAtTheNextDelivery(isolation: String) throws {
        let workspace = try Workspace("bus-thread-\(isolation)")
        defer { workspace.remove() }
        try Self.busPlugin("a.so", in: workspace, ["BUS_ID=\"com.example.listener\"", "BUS_OBSERVE=\"com.example.threaded\""])
        try Self.busPlugin("b.so", in: workspace, ["BUS_ID=\"com.example.threads\"", "BUS_THREAD_POST=\"com.example.threaded\""])
        let result = try Self.run(workspace, isolation, ["--open-url", "myapp://x"])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        #expect(CLI.pluginLogs(result.output).contains(
            "com.example.listener: received com.example.threaded {\"thread\":true} from com.example.threads"), "\(result.output)")
    }

    @Test(arguments: isolations)
    func scriptPostsAreDeliveredAndUnobservedOnesCounted(isolation: String) throws {
        let workspace = try Workspace("bus-script-\(isolation)")
        defer { workspace.remove() }
        try Self.busPlugin("a.so", in: workspace, ["BUS_ID=\"com.example.listener\"", "BUS_OBSERVE=\"com.example.script\""])
        let events = try workspace.events([
            #"{"event":"post","name":"com.example.script","payload":{"k":1}}"#,
            #"{"event":"post","name":"com.example.nobody"}"#,
            #"{"event":"post","name":"not-a-name"}"#,
            #"{"event":"post","name":"com.example.script","payload":[1]}"#,
        ])
        let result = try Self.run(workspace, isolation, ["--events", events])
        #expect(result.status == 65, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        #expect(CLI.pluginLogs(result.output).contains("com.example.listener: received com.example.script {\"k\":1} from plugboard"),
                "\(result.output)")
        #expect(result.output.contains("    notification com.example.script  plugboard → com.example.listener"), "\(result.output)")
        #expect(result.output.contains("    notification com.example.nobody  from plugboard: unobserved"), "\(result.output)")
        #expect(result.output.contains("events line 3: post: the notification name 'not-a-name' is not valid"), "\(result.output)")
        #expect(result.output.contains("events line 4: \"payload\" must be a JSON object"), "\(result.output)")

        let json = try Self.run(workspace, isolation, ["--events", events, "--json"])
        let posts = try #require(CLI.runLines(json.output)).compactMap(\.post)
        #expect(posts.count == 2, "\(json.output)")
        let delivery = posts.first?.notifications.deliveries.first
        #expect(delivery?.sender == "plugboard" && delivery?.receiver == "com.example.listener"
                && delivery?.nanoseconds != nil && delivery?.depth == 1, "\(json.output)")
        #expect(posts.last?.notifications.unobserved.count == 1, "\(json.output)")
    }

    @Test(arguments: isolations)
    func anObserverMayStopObservingFromItsOwnCallback(isolation: String) throws {
        let workspace = try Workspace("bus-stop-\(isolation)")
        defer { workspace.remove() }
        try Self.busPlugin("a.so", in: workspace, ["BUS_ID=\"com.example.once\"", "BUS_OBSERVE=\"com.example.news\"", "BUS_STOP_ON_RECEIVE"])
        try Self.busPlugin("c.so", in: workspace, ["BUS_ID=\"com.example.poster\"", "BUS_POST=\"com.example.news\""])
        let result = try Self.run(workspace, isolation, ["--open-url", "myapp://x"])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let received = CLI.pluginLogs(result.output).filter { $0.hasPrefix("com.example.once: ") }
        #expect(received == ["com.example.once: received com.example.news {\"n\":1} from com.example.poster"], "\(result.output)")
        #expect(result.output.contains("com.example.news  from com.example.poster: unobserved"), "\(result.output)")
    }

    @Test(arguments: isolations)
    func anObserverPostingToItselfIsStoppedAtTheDepthLimitAndReported(isolation: String) throws {
        let workspace = try Workspace("bus-loop-\(isolation)")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["POST_LOOP_AT=AT_OPEN_URL"])
        let result = try Self.run(workspace, isolation, ["--open-url", "myapp://x", "--trace-file", workspace.root.file("trace.json")])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("    notification com.example.loop  com.example.hostile → com.example.hostile") }.count == 16,
                "\(result.output)")
        #expect(result.output.contains("    notification com.example.loop  from com.example.hostile: DROPPED, posted 17 deep"
                                       + " (observers posting from observers; the limit is 16)"), "\(result.output)")
        let trace = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: workspace.root.file("trace.json"))))
                                 as? [String: Any])
        let events = try #require(trace["traceEvents"] as? [[String: Any]])
        let spans = events.filter { $0["cat"] as? String == "notification" && $0["ph"] as? String == "X" }
        #expect(spans.count == 16)
        #expect((spans.first?["args"] as? [String: String])?["sender"] == "com.example.hostile")
        #expect(events.contains { $0["cat"] as? String == "notification" && $0["name"] as? String == "notification dropped" })
    }

    /// Sixteen deliveries of 250 ms each to one plugin take longer than the 2 s call timeout
    /// together, but each returns well within it: no warning.
    @Test func manyQuickDeliveriesToOnePluginAreNotTakenForAHang() throws {
        let workspace = try Workspace("bus-quick-deliveries")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["POST_LOOP_AT=AT_OPEN_URL", "OBSERVER_SLEEP_MS=250"])
        let result = try Self.run(workspace, "none", ["--open-url", "myapp://x", "--call-timeout", "2"])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        #expect(result.output.split(separator: "\n").filter { $0.hasPrefix("    notification com.example.loop  ") }.count == 17,
                "\(result.output)")
        #expect(!result.output.contains("did not return from notification observer"), "\(result.output)")
    }

    @Test(arguments: isolations)
    func anObserverPostingThroughAThreadOfItsOwnIsStoppedAtTheDepthLimitToo(isolation: String) throws {
        let workspace = try Workspace("bus-thread-loop-\(isolation)")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["THREAD_POST_LOOP_AT=AT_OPEN_URL"])
        let result = try Self.run(workspace, isolation, ["--open-url", "myapp://x"])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("    notification com.example.loop  com.example.hostile → com.example.hostile") }.count == 16,
                "\(result.output)")
        #expect(result.output.contains("    notification com.example.loop  from com.example.hostile: DROPPED, posted 17 deep"),
                "\(result.output)")
    }

    @Test(arguments: isolations)
    func everyWrongCallIsRefusedWithItsStatusAndAWarningThatNamesTheCause(isolation: String) throws {
        let workspace = try Workspace("bus-errors-\(isolation)")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["BAD_BUS_CALLS_AT=AT_OPEN_URL"])
        let result = try Self.run(workspace, isolation, ["--open-url", "myapp://x"])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let logs = CLI.pluginLogs(result.output)
        for expected in ["bus post bad name: -1", "bus post array payload: -1", "bus post payload not UTF-8: -1",
                         "bus post NULL id: -1", "bus post unknown id: -1",
                         "bus observe NULL callback: -1", "bus observe NULL token: -1", "bus stop unknown token: -4"] {
            #expect(logs.contains("com.example.hostile: " + expected), "\(expected): \(result.output)")
        }
        for cause in ["the notification name 'no dots here' is not valid: the name contains \" \"",
                      "post com.example.x: the payload is not a JSON object: [1, 2]", "post com.example.x: the payload is not UTF-8",
                      "post: the plugin id is NULL", "'com.example.stranger' is not a plugin of",
                      "observe com.example.x: the callback is NULL", "observe com.example.x: the token pointer is NULL",
                      "stop_observing: ", "has no observation with token 424242"] {
            #expect(result.output.contains(cause), "\(cause): \(result.output)")
        }
    }

    @Test(arguments: isolations)
    func aPluginLoopingOnARefusedCallGetsSixteenWarningsNotAFlood(isolation: String) throws {
        let workspace = try Workspace("bus-refusal-budget-\(isolation)")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["BAD_BUS_CALLS_AT=AT_OPEN_URL", "BAD_BUS_REPEAT=1000"])
        let result = try Self.run(workspace, isolation, ["--open-url", "myapp://x"])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        #expect(CLI.pluginLogs(result.output).contains("com.example.hostile: bad posts repeated"), "\(result.output)")
        let refusals = result.output.split(separator: "\n").filter { $0.contains("; refused") }
        #expect(refusals.count == 16, "8 wrong calls, then 8 of the 1000 repeats: \(result.output)")
        #expect(refusals.last?.contains("later refused notification calls of this library are not logged") == true,
                "\(refusals.last ?? "")")
    }

    @Test(arguments: isolations)
    func aCppPluginPostsAndObservesThroughThePluginHelper(isolation: String) throws {
        let workspace = try Workspace("bus-cpp-\(isolation)")
        defer { workspace.remove() }
        try PluginCompiler.compile(TestPaths.fixtures + "/bus_cpp_plugin.cpp", to: workspace.plugins + "/cppbus.so",
                                   flags: ["-pedantic"], cplusplus: true)
        let result = try Self.run(workspace, isolation, ["--open-url", "myapp://x"])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        #expect(CLI.pluginLogs(result.output) == ["com.example.cppbus: post: 0",
                                                  #"com.example.cppbus: received com.example.cpp.news {"from":"c++"} from com.example.cppbus"#],
                "\(result.output)")
    }

    @Test func aCrashInAnObserverNamesThePluginInProcess() throws {
        let workspace = try Workspace("bus-crash-none")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["OBSERVE_SEGV_AT=AT_OPEN_URL"])
        let result = try Self.run(workspace, "none", ["--open-url", "myapp://x"])
        #expect(result.status == 128 + SIGSEGV, "\(result.output)\n\(result.errorOutput)")
        #expect(result.errorOutput.contains("plugboard: com.example.hostile crashed with SIGSEGV in notification observer (\(library))"),
                "\(result.errorOutput)")
    }

    @Test func anObserverThatHangsInProcessIsReportedAfterTheCallTimeout() throws {
        let workspace = try Workspace("bus-hang-none")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["OBSERVE_SPIN_AT=AT_OPEN_URL"])
        let process = try LiveProcess(try CLI.binary(), ["run", "--isolation", "none", "--plugin-dir", workspace.plugins,
                                                         "--container", workspace.root.file("container"), "--open-url", "myapp://x",
                                                         "--call-timeout", "0.2"])
        defer { process.stop() }
        let warning = "com.example.hostile did not return from notification observer within 0.2 s"
        #expect(process.waitForOutput(containing: warning, timeout: .seconds(60)), "\(process.output)")
    }
}

/// An observer in a worker that crashes or hangs is reported like any call, and the run goes on.
@Suite struct NotificationWorkerFaultTests {
    @Test(arguments: [("OBSERVE_SEGV_AT", [String](), "crashed with SIGSEGV in notification observer"),
                      ("OBSERVE_SPIN_AT", ["--call-timeout", "0.5"], "did not return from notification observer within 0.5 s")])
    func aFailingObserverInAWorkerIsReportedAndTheRunGoesOn(action: String, options: [String], failure: String) throws {
        let workspace = try Workspace("bus-worker-fault")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["\(action)=AT_OPEN_URL"])
        try NotificationRunTests.busPlugin("listener.so", in: workspace, ["BUS_ID=\"com.example.listener\"",
                                                                          "BUS_OBSERVE=\"com.example.boom\""])
        let result = try NotificationRunTests.run(workspace, "process", ["--open-url", "myapp://x", "--open-url", "myapp://y"] + options)
        #expect(result.status == 5, "\(result.output)\n\(result.errorOutput)")
        #expect(result.output.contains("com.example.hostile \(failure) (\(library))"), "\(result.output)")
        #expect(result.output.contains("    notification com.example.boom  com.example.hostile → com.example.hostile"), "\(result.output)")
        #expect(result.output.contains("FAILED: com.example.hostile \(failure)"), "\(result.output)")
        let listener = CLI.pluginLogs(result.output).filter { $0.hasPrefix("com.example.listener: received com.example.boom") }
        #expect(listener.count == 1, "the other observer still receives it: \(result.output)")
        #expect(CLI.eventNames(result.output).suffix(2) == ["open-url", "will-terminate"], "\(result.output)")
    }
}

extension NotificationWorkerFaultTests {
    /// Plugin code that writes a `post` frame the bus refuses straight to the worker's channel:
    /// the host checks it again and ends the worker as for any frame that breaks the protocol.
    @Test func aForgedPostFromAWorkerIsCheckedAgainByTheHost() throws {
        let workspace = try Workspace("bus-forged-post")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["FORGE_POST_AT=AT_OPEN_URL"])
        let result = try NotificationRunTests.run(workspace, "process", ["--open-url", "myapp://x"])
        #expect(result.status == 5, "\(result.output)\n\(result.errorOutput)")
        #expect(result.output.contains("com.example.hostile lost its worker in open_url (\(library)): it sent a post the bus refuses: "
                                       + "post: the notification name 'no dots' is not valid"), "\(result.output)")
        #expect(!result.output.contains("notification no dots"), "\(result.output)")
        #expect(CLI.eventNames(result.output).last == "will-terminate", "\(result.output)")
    }

    /// The same frame written in `init`, before the host registered the library, whose calls wait
    /// for that: the host refuses it as it comes, and the worker ends in `init`, not after its load.
    @Test func aForgedPostBeforeTheLibraryIsRegisteredEndsTheWorkerAtOnce() throws {
        let workspace = try Workspace("bus-forged-early-post")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["FORGE_POST_AT=AT_INIT"])
        let result = try NotificationRunTests.run(workspace, "process", [])
        #expect(result.output.contains("FAILED   \(library): init: \(library) lost its worker in init: it sent a post the bus refuses: "
                                       + "post: the notification name 'no dots' is not valid"), "\(result.output)")
    }

    /// Plugin code that writes a valid `post` frame on behalf of another library's plugin: the
    /// host ends the worker instead of delivering a notification with a forged sender.
    @Test func aPostOnBehalfOfAnotherLibrarysPluginEndsTheWorker() throws {
        let workspace = try Workspace("bus-forged-sender")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["FORGE_SENDER_AT=AT_OPEN_URL"])
        try NotificationRunTests.busPlugin("victim.so", in: workspace, ["BUS_ID=\"com.example.victim\"",
                                                                        "BUS_OBSERVE=\"com.example.forged\""])
        let result = try NotificationRunTests.run(workspace, "process", ["--open-url", "myapp://x"])
        #expect(result.status == 5, "\(result.output)\n\(result.errorOutput)")
        #expect(result.output.contains("com.example.hostile lost its worker in open_url (\(library)): it sent a post on behalf of "
                                       + "'com.example.victim', which is not one of its plugins the host registered"), "\(result.output)")
        #expect(!result.output.contains("notification com.example.forged"), "\(result.output)")
    }
}

/// The bus examples: network-monitor posts the network status on app-state changes; url-history observes and logs it.
@Suite struct NetworkMonitorExampleTests {
    @Test(arguments: NotificationRunTests.isolations)
    func urlHistoryLogsEveryStatusTheNetworkMonitorPosts(isolation: String) throws {
        let workspace = try Workspace("bus-example-\(isolation)")
        defer { workspace.remove() }
        for (folder, file) in [("network-monitor", "network_monitor.c"), ("url-history", "url_history.c")] {
            let source = TestPaths.packageRoot.appendingPathComponent("plugins/\(folder)/\(file)").path
            try PluginCompiler.compile(source, to: workspace.plugins + "/\(folder).so", flags: ["-pedantic"])
        }
        let events = try workspace.events([#"{"event":"did-become-active"}"#, #"{"event":"will-resign-active"}"#,
                                           #"{"event":"did-enter-background"}"#, #"{"event":"will-enter-foreground"}"#])
        let result = try NotificationRunTests.run(workspace, isolation, ["--events", events])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let statuses = [#"{"online":true,"reason":"did-become-active"}"#, #"{"online":false,"reason":"did-enter-background"}"#,
                        #"{"online":true,"reason":"will-enter-foreground"}"#]
        let logs = CLI.pluginLogs(result.output)
        #expect(logs.filter { $0.hasPrefix("com.example.network-monitor: ") } == statuses.map { "com.example.network-monitor: posted " + $0 })
        #expect(logs.filter { $0.hasPrefix("com.example.url-history: network") }
                == statuses.map { "com.example.url-history: network status from com.example.network-monitor: " + $0 }, "\(result.output)")
        #expect(result.output.components(separatedBy: "    notification com.example.network.status  com.example.network-monitor → com.example.url-history  ").count == 4,
                "\(result.output)")
    }
}
