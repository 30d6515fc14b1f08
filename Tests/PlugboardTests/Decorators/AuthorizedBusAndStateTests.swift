import Foundation
import Testing

/// `--policy` over the notification bus and saved state, through the real binary, in both
/// isolation modes: a denied `post` or `observe` answers `PB_ERR_DENIED` in process and is
/// dropped (or not made) from a worker, logged once per library however often the plugin
/// retries; a denied `saved-state` concern is neither restored nor saved.
@Suite struct AuthorizedBusAndStateTests {
    /// A hostile plugin that observes `com.example.loud` and posts it 100 times at open_url
    /// (`LOUD_POSTS_AT`), a listener of it (`bus_plugin.c`), and a policy denying the hostile plugin `rights`.
    private func loudWorkspace(_ label: String, denying rights: [String]) throws -> Workspace {
        let workspace = try Workspace("authorized-bus-" + label)
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["LOUD_POSTS_AT=AT_OPEN_URL"])
        try NotificationRunTests.busPlugin("listener.so", in: workspace, ["BUS_ID=\"com.example.listener\"",
                                                                          "BUS_OBSERVE=\"com.example.loud\""])
        let names = rights.map { "\"\($0)\"" }.joined(separator: ", ")
        try workspace.root.write("policy.json", #"{"plugins": {"com.example.hostile": {"deny": [\#(names)]}}}"#)
        return workspace
    }

    /// `run --open-url` over `workspace` under its policy.
    private func run(_ workspace: Workspace, _ isolation: String) throws -> ProcessResult {
        try NotificationRunTests.run(workspace, isolation, ["--open-url", "myapp://x", "--policy", workspace.root.file("policy.json")])
    }

    /// The one warning the gate logs for `service`, checked to name the plugin and the policy file.
    private func expectOneWarning(_ service: String, _ result: ProcessResult, _ workspace: Workspace) {
        let warnings = CLI.pluginLogs(result.output).filter { $0.hasPrefix("plugboard: \(service) denied to ") }
        #expect(warnings.count == 1, "\(result.output)")
        #expect(warnings.first.map { $0.contains("the policy '\(workspace.root.file("policy.json"))' denies it to com.example.hostile") }
                == true, "\(warnings)")
    }

    @Test(arguments: NotificationRunTests.isolations)
    func aDeniedPostIsRefusedInProcessAndDroppedFromAWorkerAndLoggedOnce(isolation: String) throws {
        let workspace = try loudWorkspace("post-\(isolation)", denying: ["post"])
        defer { workspace.remove() }
        let result = try run(workspace, isolation)
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        // In process the plugin sees PB_ERR_DENIED (-10); a worker's posts are not answered (PB_OK there).
        let status = isolation == "none" ? -10 : 0
        #expect(CLI.pluginLogs(result.output).contains("com.example.hostile: loud posts: observe 0 post \(status)"), "\(result.output)")
        #expect(!result.output.contains("received com.example.loud"), "nothing is delivered: \(result.output)")
        #expect(!result.output.contains("notification com.example.loud"), "nothing is posted: \(result.output)")
        expectOneWarning("post", result, workspace)
    }

    @Test(arguments: NotificationRunTests.isolations)
    func aDeniedObservationIsRefusedInProcessAndNotMadeFromAWorker(isolation: String) throws {
        let workspace = try loudWorkspace("observe-\(isolation)", denying: ["observe"])
        defer { workspace.remove() }
        let result = try run(workspace, isolation)
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let status = isolation == "none" ? -10 : 0
        let logs = CLI.pluginLogs(result.output)
        #expect(logs.contains("com.example.hostile: loud posts: observe \(status) post 0"), "\(result.output)")
        #expect(!logs.contains { $0.hasPrefix("com.example.hostile: received") }, "\(result.output)")
        // Its posts still reach the observer the policy allows, every one.
        #expect(logs.filter { $0.hasPrefix("com.example.listener: received com.example.loud ") }.count == 100, "\(result.output)")
        #expect(result.output.components(separatedBy: "notification com.example.loud  com.example.hostile → com.example.listener  ").count
                == 101, "\(result.output)")
        #expect(!result.output.contains("com.example.loud  com.example.hostile → com.example.hostile"), "\(result.output)")
        expectOneWarning("observe", result, workspace)
    }

    @Test(arguments: SavedStateRunTests.isolations)
    func aPluginDeniedSavedStateIsNeitherRestoredNorSaved(isolation: String) throws {
        let workspace = try SavedStateRunTests.workspace("denied-\(isolation)")
        defer { workspace.remove() }
        let counter = SavedStateRunTests.counter
        let first = try SavedStateRunTests.run(workspace, isolation, urls: 2)
        #expect(first.status == 0 && SavedStateRunTests.logs(first, of: counter) == ["count 1", "count 2"],
                "\(first.output)\n\(first.errorOutput)")
        let path = SavedStateRunTests.file(workspace, counter)
        let saved = try Data(contentsOf: URL(fileURLWithPath: path))

        let policy = workspace.root.file("policy.json")
        try workspace.root.write("policy.json", #"{"plugins": {"com.example.counter": {"deny": ["saved-state"]}}}"#)
        let second = try SavedStateRunTests.run(workspace, isolation, urls: 1, ["--policy", policy])
        #expect(second.status == 0, "\(second.output)\n\(second.errorOutput)")
        #expect(SavedStateRunTests.logs(second, of: counter) == [
            "restore_state not delivered: the policy '\(policy)' denies \(counter) saved-state",
            "count 1",
            "save_state not delivered: the policy '\(policy)' denies \(counter) saved-state",
        ], "\(second.output)")
        for operation in ["restore", "save"] {
            #expect(try SavedStateRunTests.entries(second, operation).map(\.outcome.rawValue) == ["denied"], "\(second.output)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == saved, "the state file is untouched")
    }
}
