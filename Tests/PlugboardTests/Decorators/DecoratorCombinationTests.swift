import Foundation
import Testing

/// The notification bus, saved state, all three decorators and `--trace-file` in one run of the
/// real binary, in both isolation modes, with C plugins (`hostile_plugin.c` keeping a state and
/// logging from a thread, `bus_plugin.c` observing) and a C++ SDK plugin (`bus_cpp_plugin.cpp`,
/// posting and observing).
@Suite struct DecoratorCombinationTests {
    @Test(arguments: ["process", "none"])
    func theBusSavedStateAndEveryDecoratorWorkTogether(isolation: String) throws {
        let workspace = try Workspace("decorated-together-\(isolation)")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["SAVED_STATE", "CONFINED_LOG_AT=AT_OPEN_URL"])
        try NotificationRunTests.busPlugin("listener.so", in: workspace, ["BUS_ID=\"com.example.listener\"",
                                                                          "BUS_OBSERVE=\"com.example.cpp.news\""])
        try PluginCompiler.compile(TestPaths.fixtures + "/bus_cpp_plugin.cpp", to: workspace.plugins + "/cppbus.so", cplusplus: true)
        let policy = workspace.root.file("policy.json")
        try workspace.root.write("policy.json", #"{"plugins": {"com.example.listener": {"deny": ["open-url"]}}}"#)
        func run(tracingTo file: String) throws -> ProcessResult {
            try NotificationRunTests.run(workspace, isolation, ["--open-url", "myapp://x", "--policy", policy, "--trace-plugin", "all",
                                                                "--confine-threads", "--trace-file", workspace.root.file(file)])
        }

        let first = try run(tracingTo: "first.json")
        #expect(first.status == 0, "\(first.output)\n\(first.errorOutput)")
        let logs = CLI.pluginLogs(first.output)
        // Authorization: the listener is kept out of open-url, and still observes.
        #expect(first.output.contains("    com.example.listener  denied by policy\n"), "\(first.output)")
        // The bus: each delivery in the report, traced, and in the trace file.
        let posted = #"(payload: "{\"from\":\"c++\"}", from: "com.example.cppbus") → delivered in "#
        for receiver in ["com.example.cppbus", "com.example.listener"] {
            #expect(first.output.contains("    notification com.example.cpp.news  com.example.cppbus → \(receiver)  "), "\(first.output)")
            #expect(logs.contains { $0.hasPrefix("\(receiver): trace: notification com.example.cpp.news" + posted) }, "\(logs)")
        }
        let trace = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: workspace.root.file("first.json"))))
                                 as? [String: Any])
        let spans = (trace["traceEvents"] as? [[String: Any]] ?? []).filter { $0["cat"] as? String == "notification" && $0["ph"] as? String == "X" }
        #expect(Set(spans.compactMap { ($0["args"] as? [String: Any])?["receiver"] as? String })
                == ["com.example.cppbus", "com.example.listener"], "\(spans)")
        // Confinement: the plugin thread's line reaches the log on the dispatch thread, after the
        // callback's own first line and before the callback's trace line and the event's report.
        let hostile = logs.filter { $0.hasPrefix("com.example.hostile: ") }
        let callback = try #require(hostile.firstIndex(of: "com.example.hostile: open-url"), "\(hostile)")
        let thread = try #require(hostile.firstIndex(of: "com.example.hostile: from a plugin thread"), "\(hostile)")
        let traced = try #require(hostile.firstIndex { $0.hasPrefix("com.example.hostile: trace: open_url(") }, "\(hostile)")
        #expect(callback < thread && thread < traced, "\(hostile)")
        if isolation == "none" {
            #expect(hostile.firstIndex(of: "com.example.hostile: after the thread joined").map { $0 < thread } == true, "\(hostile)")
        }
        let threadLine = try #require(first.output.range(of: "from a plugin thread"))
        let report = try #require(first.output.range(of: "open-url myapp://x → "), "\(first.output)")
        #expect(threadLine.upperBound < report.lowerBound, "\(first.output)")
        // Saved state: saved after will-terminate, and traced.
        #expect(first.output.contains("state saved com.example.hostile (13 bytes)"), "\(first.output)")
        #expect(logs.contains { $0.hasPrefix("com.example.hostile: trace: save_state() → 13 bytes in ") }, "\(logs)")

        let second = try run(tracingTo: "second.json")
        #expect(second.status == 0, "\(second.output)\n\(second.errorOutput)")
        #expect(second.output.contains("state restored com.example.hostile (13 bytes)"), "\(second.output)")
        let restored = CLI.pluginLogs(second.output).filter { $0.hasPrefix("com.example.hostile: ") }.prefix(2)
        #expect(restored.first == "com.example.hostile: restored: hostile state", "\(second.output)")
        #expect(restored.last?.hasPrefix(#"com.example.hostile: trace: restore_state(saved_version: "1.0", bytes: 13) → ok in "#) == true,
                "\(second.output)")
    }
}
