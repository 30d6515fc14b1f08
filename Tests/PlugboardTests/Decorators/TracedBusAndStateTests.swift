import Testing

/// `--trace-plugin` covers every call to a traced plugin, not only its event callbacks and
/// functions: each notification delivered to it and its saved-state calls, through the real
/// binary with real plugins (`Fixtures/bus_plugin.c`, `saved_state_plugin.c`, `hostile_plugin.c`),
/// in both isolation modes.
@Suite struct TracedBusAndStateTests {
    /// A traced observer's deliveries are traced one by one, each after what its observer logged,
    /// and after the event's own traced calls; an observer not named is not traced.
    @Test(arguments: NotificationRunTests.isolations)
    func eachDeliveryToATracedObserverIsTracedAfterIt(isolation: String) throws {
        let workspace = try Workspace("traced-bus-\(isolation)")
        defer { workspace.remove() }
        try NotificationRunTests.busPlugin("a.so", in: workspace, ["BUS_ID=\"com.example.listener\"", "BUS_OBSERVE=\"com.example.news\""])
        try NotificationRunTests.busPlugin("b.so", in: workspace, ["BUS_ID=\"com.example.other\"", "BUS_OBSERVE=\"com.example.news\""])
        try NotificationRunTests.busPlugin("c.so", in: workspace, ["BUS_ID=\"com.example.poster\"", "BUS_POST=\"com.example.news\""])
        let result = try NotificationRunTests.run(workspace, isolation, ["--open-url", "myapp://x", "--trace-plugin", "com.example.listener"])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let logs = CLI.pluginLogs(result.output).filter { $0.hasPrefix("com.example.listener: ") }
        let news = logs.filter { $0.contains("com.example.news") }
        try #require(news.count == 4, "\(logs)")
        for n in 1...2 {
            #expect(news[2 * n - 2] == "com.example.listener: received com.example.news {\"n\":\(n)} from com.example.poster", "\(logs)")
            #expect(news[2 * n - 1].hasPrefix(#"com.example.listener: trace: notification com.example.news(payload: "{\"n\":\#(n)}", "#
                                              + #"from: "com.example.poster") → delivered in "#), "\(logs)")
        }
        let openURL = try #require(logs.firstIndex { $0.hasPrefix("com.example.listener: trace: open_url(") }, "\(logs)")
        #expect(logs.firstIndex(of: news[0]).map { openURL < $0 } == true, "the event's calls are traced before its deliveries: \(logs)")
        #expect(!result.output.contains("[com.example.other] debug: trace:"), "\(result.output)")
    }

    /// A delivery whose observer's worker crashes is traced as failed, with the failure's sentence.
    @Test func aDeliveryThatFailsIsTracedWithItsFailure() throws {
        let workspace = try Workspace("traced-bus-failure")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["OBSERVE_SEGV_AT=AT_OPEN_URL"])
        let result = try NotificationRunTests.run(workspace, "process", ["--open-url", "myapp://x", "--trace-plugin", "com.example.hostile"])
        #expect(result.status == 5, "\(result.output)\n\(result.errorOutput)")
        let traced = #"com.example.hostile: trace: notification com.example.boom(payload: "{}", from: "com.example.hostile") → failed: "#
            + "com.example.hostile crashed with SIGSEGV in notification observer (\(library)) in "
        #expect(CLI.pluginLogs(result.output).contains { $0.hasPrefix(traced) }, "\(result.output)")
    }

    /// Saving and restoring a traced plugin's state are traced with their arguments and answers,
    /// each after what the call logged; a plugin not named is not traced.
    @Test(arguments: SavedStateRunTests.isolations)
    func aTracedPluginsSaveAndRestoreAreTraced(isolation: String) throws {
        let workspace = try SavedStateRunTests.workspace("traced-\(isolation)")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["SAVED_STATE"])
        let trace = ["--trace-plugin", SavedStateRunTests.hostile]
        let first = try SavedStateRunTests.run(workspace, isolation, urls: 1, trace)
        #expect(first.status == 0, "\(first.output)\n\(first.errorOutput)")
        let saving = SavedStateRunTests.logs(first, of: SavedStateRunTests.hostile).suffix(2)
        #expect(saving.first == "save-state", "\(first.output)")
        #expect(saving.last?.hasPrefix("trace: save_state() → 13 bytes in ") == true, "\(first.output)")

        let second = try SavedStateRunTests.run(workspace, isolation, urls: 1, trace)
        #expect(second.status == 0, "\(second.output)\n\(second.errorOutput)")
        let restoring = SavedStateRunTests.logs(second, of: SavedStateRunTests.hostile).prefix(2)
        #expect(restoring.first == "restored: hostile state", "\(second.output)")
        #expect(restoring.last?.hasPrefix(#"trace: restore_state(saved_version: "1.0", bytes: 13) → ok in "#) == true, "\(second.output)")
        #expect(!SavedStateRunTests.logs(second, of: SavedStateRunTests.counter).contains { $0.hasPrefix("trace:") }, "\(second.output)")
    }

    /// A save the host refuses is traced as failed, with the host's sentence.
    @Test(arguments: SavedStateRunTests.isolations)
    func aFailingSaveIsTracedWithItsCause(isolation: String) throws {
        let workspace = try SavedStateRunTests.workspace("traced-failure-\(isolation)", counterVersion: nil)
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["SAVED_STATE", "NULL_STATE_AT=AT_SAVE_STATE"])
        let result = try SavedStateRunTests.run(workspace, isolation, ["--trace-plugin", "all"])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        #expect(SavedStateRunTests.logs(result, of: SavedStateRunTests.hostile).last?
                    .hasPrefix("trace: save_state() → failed: save_state returned NULL data with a size of 100 in ") == true,
                "\(result.output)")
    }
}
