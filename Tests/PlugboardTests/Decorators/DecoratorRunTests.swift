import Foundation
import Plugboard
@testable import plugboard
import Testing

/// `plugboard run --policy/--trace-plugin/--confine-threads` with real plugins, in both
/// isolation modes: each decorator alone and stacked, and what a plugin sees of them.
@Suite struct DecoratorRunTests {
    /// Denies the hostile plugin files and termination, every plugin invoke.
    static let policy = """
        {"default": {"deny": ["invoke"]},
         "plugins": {"com.example.hostile": {"deny": ["files", "termination"]}}}
        """

    /// A workspace with a hostile plugin that retries denied services in a loop at open_url.
    private func deniedLoop() throws -> Workspace {
        let workspace = try Workspace("decorators")
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins,
                                   ["DENIED_LOOP_AT=AT_OPEN_URL", "HOSTILE_INVOKE=\"com.example.other.f\""])
        try workspace.root.write("policy.json", Self.policy)
        return workspace
    }

    @Test(arguments: ["none", "process"])
    func aDeniedServiceAnswersDeniedAndADeniedConcernIsNotDelivered(isolation: String) throws {
        let workspace = try deniedLoop()
        defer { workspace.remove() }
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("c"),
                                  "--isolation", isolation, "--policy", workspace.root.file("policy.json"), "--open-url", "x://y"])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        let logs = CLI.pluginLogs(result.output)
        // The plugin saw PB_ERR_DENIED (-10) from both services, after 1000 tries each; one log line per service.
        #expect(logs.contains("com.example.hostile: denied loop: files -10 invoke -10"), "\(logs)")
        #expect(logs.filter { $0.hasPrefix("plugboard: files denied to ") }.count == 1, "\(logs)")
        #expect(logs.filter { $0.hasPrefix("plugboard: invoke denied to ") }.count == 1, "\(logs)")
        #expect(logs.contains { $0.contains("denies it to com.example.hostile") && $0.contains("policy.json") }, "\(logs)")
        // Termination is denied: not delivered, logged, reported as denied, not as a failure.
        #expect(!logs.contains("com.example.hostile: will-terminate"), "\(logs)")
        #expect(logs.contains { $0.hasPrefix("com.example.hostile: will_terminate not delivered: the policy '") }, "\(logs)")
        #expect(result.output.contains("    com.example.hostile  denied by policy\n"), "\(result.output)")
        #expect(result.output.contains("             denied by policy: termination, files, invoke\n"), "\(result.output)")
    }

    /// Before a library has registered its plugins (its `init`), the policy's default rule is its rule.
    @Test(arguments: ["none", "process"])
    func theDefaultRuleGovernsALibraryUntilItRegisters(isolation: String) throws {
        let workspace = try Workspace("decorators-init")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["FILES_AT=AT_INIT"])
        try workspace.root.write("policy.json", #"{"default": {"deny": ["files"]}, "plugins": {"com.example.hostile": {"allow": ["files"]}}}"#)
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("c"),
                                  "--isolation", isolation, "--policy", workspace.root.file("policy.json")])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        #expect(CLI.pluginLogs(result.output).contains {
            $0.hasPrefix("plugboard: files denied to ") && $0.contains("every plugin by default (the library has not registered its plugins yet)")
        }, "\(result.output)")
        // Once registered, its own rule allows it files: nothing is denied to it.
        #expect(!result.output.contains("denied by policy"), "\(result.output)")
    }

    @Test func theJSONReportShowsThePolicyAndEachDenial() throws {
        let workspace = try deniedLoop()
        defer { workspace.remove() }
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("c"),
                                  "--policy", workspace.root.file("policy.json"), "--json"])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        let lines = try #require(CLI.runLines(result.output))
        let policy = try #require(lines.lazy.compactMap(\.policy).first, "\(result.output)")
        #expect(policy.policy == workspace.root.file("policy.json"))
        #expect(policy.denials["com.example.hostile"] == ["termination", "files", "invoke"])
        let terminate = try #require(lines.events(named: "will-terminate").first)
        #expect(terminate.denied.map(\.rawValue) == ["com.example.hostile"], "\(terminate)")
        #expect(terminate.failures.isEmpty)
    }

    /// Authorization → tracing → confinement: a denied call is not traced; a trace line follows
    /// everything its call did, the thread's line included.
    @Test(arguments: ["none", "process"])
    func stackedDecoratorsShowTheirOrderInTheLog(isolation: String) throws {
        let workspace = try Workspace("decorator-order")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["CONFINED_LOG_AT=AT_WILL_FINISH"])
        try workspace.root.write("policy.json", #"{"plugins": {"com.example.hostile": {"deny": ["open-url"]}}}"#)
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("c"),
                                  "--isolation", isolation, "--policy", workspace.root.file("policy.json"),
                                  "--trace-plugin", "com.example.hostile", "--confine-threads", "--open-url", "x://\u{1b}y"])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        let logs = CLI.pluginLogs(result.output).filter { $0.hasPrefix("com.example.hostile: ") }
            .map { String($0.dropFirst("com.example.hostile: ".count)) }
        let launch = Array(logs.prefix(4))
        #expect(launch.first == "will-finish-launching", "\(logs)")
        #expect(Set(launch[1..<3]) == ["from a plugin thread", "after the thread joined"], "\(logs)")
        #expect(launch.last?.hasPrefix("trace: will_finish_launching(options: \"{}\") → true in ") == true, "\(logs)")
        // The denied open_url is logged by authorization and never reaches tracing (nor the plugin).
        #expect(logs.contains { $0.hasPrefix("open_url not delivered: the policy ") }, "\(logs)")
        #expect(!logs.contains { $0.contains("open_url(") || $0 == "open-url" }, "\(logs)")
        #expect(logs.contains { $0.hasPrefix("trace: will_terminate() → returned in ") }, "\(logs)")
        // Only the plugin named is traced.
        #expect(!result.output.contains("[org.plugboard.files] debug: trace:"), "\(result.output)")
        // What the library sends while it shuts down (from its worker's channel, too) is delivered at shutdown.
        #expect(CLI.pluginLogs(result.output).contains { $0.hasSuffix("hostile.so: deinit") }, "\(result.output)")
    }

    /// In process the callback's own line passes at once; the thread's line waits for the dispatch
    /// thread (after the callback) under confinement, and comes first without it.
    @Test func confinementHandsAThreadsLogLineToTheDispatchThread() throws {
        let workspace = try Workspace("confinement")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["CONFINED_LOG_AT=AT_WILL_FINISH"])
        for confined in [true, false] {
            let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("c"),
                                      "--isolation", "none"] + (confined ? ["--confine-threads"] : []))
            #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
            let logs = CLI.pluginLogs(result.output)
            let thread = try #require(logs.firstIndex(of: "com.example.hostile: from a plugin thread"), "\(logs)")
            let joined = try #require(logs.firstIndex(of: "com.example.hostile: after the thread joined"), "\(logs)")
            #expect(confined ? joined < thread : thread < joined, "confined \(confined): \(logs)")
            // Either way, before the event's report.
            let report = try #require(result.output.range(of: "will-finish-launching → "))
            #expect(result.output.range(of: "from a plugin thread")?.lowerBound ?? report.upperBound < report.lowerBound)
        }
    }

    /// C++ (the SDK's theme-switcher), C (unit-user invoking unit-converter) and Swift (the SDK's
    /// invoke, seen as InvokeError) under one policy and tracing.
    @Test(arguments: ["none", "process"])
    func cxxCAndSwiftPluginsAreDecoratedAlike(isolation: String) throws {
        let workspace = try Workspace("decorated-languages")
        defer { workspace.remove() }
        let plugins = TestPaths.packageRoot.appendingPathComponent("plugins").path
        try PluginCompiler.compile(plugins + "/theme-switcher/theme_switcher.cpp", to: workspace.plugins + "/theme-switcher.so",
                                   cplusplus: true)
        try PluginCompiler.compile(plugins + "/unit-converter/unit_converter.c", to: workspace.plugins + "/unit-converter.so")
        try PluginCompiler.compile(plugins + "/unit-user/unit_user.c", to: workspace.plugins + "/unit-user.so")
        try SwiftPackageLibraries.copy(SwiftPackageLibraries.invoke, into: workspace.plugins)
        try workspace.root.write("policy.json", """
            {"plugins": {"com.example.theme-switcher": {"deny": ["open-url"]}, "com.example.unit-user": {"deny": ["invoke"]},
                         "com.example.swiftcaller": {"deny": ["invoke"]}}}
            """)
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("c"),
                                  "--isolation", isolation, "--policy", workspace.root.file("policy.json"),
                                  "--trace-plugin", "com.example.theme-switcher", "--open-url", "themes://dark"])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        let logs = CLI.pluginLogs(result.output)
        #expect(logs.contains { $0.hasPrefix("com.example.unit-user: cannot convert (status -10): invoke com.example.units.convert: invoke denied to ") },
                "\(logs)")
        #expect(logs.contains { $0.hasPrefix("com.example.swiftcaller: cannot convert (status -10): invoke com.example.units.convert: invoke denied to ") },
                "\(logs)")
        #expect(result.output.contains("open-url themes://dark → not handled"), "\(result.output)")
        #expect(result.output.contains("    com.example.theme-switcher  denied by policy\n"), "\(result.output)")
        #expect(logs.contains { $0.hasPrefix("com.example.theme-switcher: trace: did_finish_launching(options: \"{}\") → true in ") },
                "\(logs)")
    }

    /// A traced plugin's functions are traced too, whoever calls them (here another plugin's `invoke`).
    @Test(arguments: ["none", "process"])
    func aTracedPluginsFunctionCallsAreTraced(isolation: String) throws {
        let workspace = try Workspace("traced-functions")
        defer { workspace.remove() }
        let plugins = TestPaths.packageRoot.appendingPathComponent("plugins").path
        try PluginCompiler.compile(plugins + "/unit-converter/unit_converter.c", to: workspace.plugins + "/unit-converter.so")
        try PluginCompiler.compile(plugins + "/unit-user/unit_user.c", to: workspace.plugins + "/unit-user.so")
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("c"),
                                  "--isolation", isolation, "--trace-plugin", "com.example.units"])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        let logs = CLI.pluginLogs(result.output)
        #expect(logs.contains { $0.hasPrefix("com.example.units: trace: function convert(\"ft\", \"m\", 3.0) → 0.9144") }, "\(logs)")
        #expect(!logs.contains { $0.hasPrefix("com.example.unit-user: trace:") }, "\(logs)")
    }

    @Test func tracingAnIdNoPluginHasIsANote() throws {
        let workspace = try Workspace("traced-nobody")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, [])
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("c"),
                                  "--isolation", "none", "--trace-plugin", "com.example.nobody", "--trace-plugin", "com.example.hostile"])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        #expect(result.output.contains("plugboard: --trace-plugin com.example.nobody: no plugin loaded has this id; nothing is traced for it\n"),
                "\(result.output)")
        #expect(!result.output.contains("--trace-plugin com.example.hostile:"), "\(result.output)")
        #expect(result.output.contains("[com.example.hostile] debug: trace: will_terminate()"), "\(result.output)")
    }

    /// A policy entry that names no plugin loaded, or no library found, is a note: a typo would
    /// otherwise deny or grant nothing, silently. The entries that name something say nothing.
    @Test func aPolicyEntryThatNamesNothingLoadedIsANote() throws {
        let workspace = try Workspace("policy-unmatched")
        defer { workspace.remove() }
        try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, [])
        try workspace.root.write("policy.json", #"""
            {"plugins": {"com.example.hostile": {"deny": ["files"]}, "com.example.hostlie": {"deny": ["files"]}},
             "libraries": {"libhostile.so": {"environment": ["HOME"]}, "libhotsile.so": {"environment": ["HOME"]}, "*": {}}}
            """#)
        let policy = workspace.root.file("policy.json")
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("c"), "--policy", policy])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        let notes = result.output.split(separator: "\n").filter { $0.hasPrefix("plugboard: the policy file") }
        #expect(notes == [
            "plugboard: the policy file '\(policy)': plugins.com.example.hostlie names nothing loaded now; it applies to nothing until it does",
            "plugboard: the policy file '\(policy)': libraries.libhotsile.so names nothing loaded now; it applies to nothing until it does",
        ], "\(result.output)")
    }

    @Test func listAndInspectShowEachPluginsDenials() throws {
        let workspace = try deniedLoop()
        defer { workspace.remove() }
        let policy = workspace.root.file("policy.json")
        let list = try CLI.run(["list", "--plugin-dir", workspace.plugins, "--policy", policy, "--no-cache"])
        #expect(list.status == 0, "\(list.output)\(list.errorOutput)")
        #expect(list.output.contains("             denied by policy: termination, files, invoke\n"), "\(list.output)")
        let json = try CLI.run(["list", "--plugin-dir", workspace.plugins, "--policy", policy, "--json", "--no-cache"])
        let document = try #require(jsonObject(json.output), "\(json.output)")
        #expect(document.object("policy")?.object("denials")?["com.example.hostile"] as? [String] == ["termination", "files", "invoke"])
        let inspect = try CLI.run(["inspect", workspace.plugins + "/hostile.so", "--policy", policy, "--no-cache"])
        #expect(inspect.output.contains("Denied        termination, files, invoke (by the policy)"), "\(inspect.output)")
    }

    @Test func aBadPolicyIsAUsageErrorNamingTheFileWhereAndWhy() throws {
        let workspace = try Workspace("bad-policy")
        defer { workspace.remove() }
        try workspace.root.write("unknown.json", #"{"plugins": {"com.example.x": {"deny": ["files", "fils"]}}}"#)
        try workspace.root.write("syntax.json", "{\"default\": {\"deny\": [\"files\"]},\n  \"plugins\": x }")
        try workspace.root.write("duplicate.json", #"{"default": {"deny": ["files"]}, "default": {"deny": []}}"#)
        let cases: [(String, String)] = [
            ("unknown.json", "plugins.com.example.x.deny[1] names \"fils\", which is not a concern or a service"),
            ("syntax.json", "is not valid JSON: "),
            ("duplicate.json", "default is not valid JSON: line 1, column 34: the key \"default\" appears twice in one object"),
            ("absent.json", "cannot be read"),
        ]
        for (command, (file, cause)) in zip(["run", "list", "run", "inspect"], cases) {
            let target = command == "inspect" ? [workspace.plugins + "/none.so"] : ["--plugin-dir", workspace.plugins]
            let result = try CLI.run([command] + target + ["--policy", workspace.root.file(file)])
            #expect(result.status == 64, "\(command) \(file): \(result.errorOutput)")
            #expect(result.errorOutput.contains("the policy file '\(workspace.root.file(file))'"), "\(result.errorOutput)")
            #expect(result.errorOutput.contains(cause), "\(result.errorOutput)")
        }
        let syntax = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--policy", workspace.root.file("syntax.json")])
        #expect(syntax.errorOutput.contains("line 2, column 14"), "\(syntax.errorOutput)")
        let trace = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--trace-plugin", "not an id"])
        #expect(trace.status == 64 && trace.errorOutput.contains("--trace-plugin 'not an id' is neither a plugin id nor 'all'"),
                "\(trace.errorOutput)")
    }
}
