import Foundation
import Plugboard
@testable import plugboard
import Testing

/// The Rust SDK end to end: crates built with the real `cargo build --offline`, loaded and
/// driven by the real `plugboard` binary, in workers and in process.
@Suite struct RustPluginTests {
    static let isolations = ["process", "none"]
    static let panicsID = "com.example.rust-panics"

    /// `plugboard run --json` over `plugins` with `arguments`; the status and the parsed lines.
    private func run(_ workspace: Workspace, isolation: String, _ arguments: [String],
                     environment: [String: String] = [:]) throws -> (Int32, [RunLine]) {
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--isolation", isolation, "--json",
                                  "--container", workspace.root.file("container")] + arguments
                                  + workspace.passingEnvironment(Array(environment.keys), isolation: isolation), environment: environment)
        let lines = try #require(CLI.runLines(result.output), "a line is not a run line:\n\(result.output)\n\(result.errorOutput)")
        return (result.status, lines)
    }

    private func events(_ lines: [RunLine]) -> [EventReport] {
        lines.events
    }

    private func logs(_ lines: [RunLine], of plugin: String) -> [String] {
        lines.logs(of: plugin)
    }

    @Test(arguments: isolations) func theExampleOpensItsLinksAndCountsThem(isolation: String) throws {
        let workspace = try Workspace("rust-example")
        defer { workspace.remove() }
        let library = try Cargo.buildPlugin("plugins/rust-example", in: workspace.root, into: workspace.plugins)
        let (status, lines) = try run(workspace, isolation: isolation, ["--open-url", "rustapp://item/7", "--open-url", "https://example.com/"])
        #expect(status == 0, "\(lines)")
        let load = try #require(lines.lazy.compactMap(\.load).first)
        #expect(load.path == library && load.status == .loaded, "\(load)")
        let plugin = try #require(load.plugins.first)
        #expect(plugin.concerns.map(\.rawValue) == ["open-url", "termination"], "\(plugin)")
        #expect(plugin.descriptor.version == "1.0.0", "\(plugin)")
        let urls = lines.events(named: "open-url")
        #expect(urls.map { $0.decidedBy.map(\.rawValue) } == [["com.example.rust-links"], []], "\(urls)")
        #expect(logs(lines, of: "com.example.rust-links") == ["open item/7", "opened 1 link(s)"], "\(lines)")
    }

    @Test func theExampleExportsOnlyTheEntrySymbol() throws {
        let workspace = try Workspace("rust-example-symbols")
        defer { workspace.remove() }
        let library = try Cargo.buildPlugin("plugins/rust-example", in: workspace.root, into: workspace.plugins)
        let symbols = try PlugboardTests.run("/usr/bin/env", ["nm", "-D", "--defined-only", library]).output
            .split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(symbols == ["plugboard_entry"], "\(symbols)")
    }

    @Test(arguments: isolations) func theHostsFilesMethodsReachTheContainer(isolation: String) throws {
        let workspace = try Workspace("rust-files")
        defer { workspace.remove() }
        try Cargo.buildPlugin("Tests/PlugboardTests/Fixtures/rust-files", in: workspace.root, into: workspace.plugins)
        let (status, lines) = try run(workspace, isolation: isolation, [])
        #expect(status == 0, "\(lines)")
        #expect(logs(lines, of: "com.example.rust-files") == [
            "read hello", "exists true", "new path Documents/c.md", #"list [{"kind":"file","name":"c.md"}]"#,
            "attributes kind 0 size 5", "exists false", "tour: succeeded",
            "missing: -4: read 'missing.txt' in Documents: not found (No such file or directory)",
            "exists: -5: write 'a.txt' in Documents: destination exists (File exists)",
            #"nul: -6: the container path "Documents/a\0b" contains a NUL byte"#,
        ], "\(lines)")
        let written = try String(contentsOfFile: workspace.root.file("container/Documents/a.txt"), encoding: .utf8)
        #expect(written == "hello")
    }

    /// Every scripted event, so that each non-launch callback of the panicking plugin runs once.
    static let everyEvent = [
        #"{"event":"open-url","url":"myapp://item/1"}"#,
        #"{"event":"continue-user-activity","type":"com.example.browse","userInfo":{}}"#,
        #"{"event":"register-token","token":"a1b2"}"#,
        #"{"event":"register-failed","error":"no network"}"#,
        #"{"event":"remote-notification","userInfo":{}}"#,
        #"{"event":"memory-warning"}"#,
        #"{"event":"protected-data-will-become-unavailable"}"#,
        #"{"event":"protected-data-did-become-available"}"#,
        #"{"event":"did-become-active"}"#,
        #"{"event":"will-resign-active"}"#,
        #"{"event":"did-enter-background"}"#,
        #"{"event":"will-enter-foreground"}"#,
    ]
    static let panickingCallbacks = [
        "open_url", "continue_user_activity", "did_register", "did_fail_to_register", "did_receive_remote_notification",
        "did_receive_memory_warning", "will_become_unavailable", "did_become_available", "did_become_active",
        "will_resign_active", "did_enter_background", "will_enter_foreground", "will_terminate",
    ]

    @Test(arguments: isolations) func aPanicInAnyCallbackIsLoggedAndAnsweredFailClosed(isolation: String) throws {
        let workspace = try Workspace("rust-panics")
        defer { workspace.remove() }
        try Cargo.buildPlugin("Tests/PlugboardTests/Fixtures/rust-panics", in: workspace.root, into: workspace.plugins)
        let (status, lines) = try run(workspace, isolation: isolation, ["--events", try workspace.events(Self.everyEvent)])
        // The host survived every panic: every event was reported, none as a crash.
        #expect(status == 0, "\(lines)")
        let events = events(lines)
        #expect(events.count == 2 + Self.everyEvent.count + 1, "\(events)")
        #expect(events.allSatisfy { $0.failures.isEmpty }, "\(events)")
        #expect(logs(lines, of: Self.panicsID) == Self.panickingCallbacks.map { "panic in \($0): boom in \($0)" }, "\(lines)")
        let answers = Dictionary(events.map { ($0.event.name, $0) }) { first, _ in first }
        #expect(answers["open-url"]?.decidedBy == [], "not handled")
        #expect(answers["continue-user-activity"]?.decidedBy == [], "not handled")
        #expect(answers["remote-notification"]?.answer == .fetch(.failed), "\(String(describing: answers["remote-notification"]))")
    }

    @Test(arguments: isolations, ["will_finish_launching", "did_finish_launching"])
    func aPanicInALaunchCallbackIsAVeto(isolation: String, callback: String) throws {
        let workspace = try Workspace("rust-panics-launch")
        defer { workspace.remove() }
        try Cargo.buildPlugin("Tests/PlugboardTests/Fixtures/rust-panics", in: workspace.root, into: workspace.plugins)
        let (status, lines) = try run(workspace, isolation: isolation, ["--launch-options", #"{"panic":"\#(callback)"}"#])
        #expect(status == 2, "a veto: \(lines)")
        let launch = try #require(lines.events(named: callback.replacingOccurrences(of: "_", with: "-")).first)
        #expect(launch.answer == .bool(false) && launch.decidedBy.map(\.rawValue) == [Self.panicsID], "\(launch)")
        #expect(logs(lines, of: Self.panicsID) == ["panic in \(callback): boom in \(callback)", "panic in will_terminate: boom in will_terminate"],
                "\(lines)")
        #expect(events(lines).last?.event == .willTerminate)
    }

    @Test(arguments: isolations) func aPanicInNewLeavesTheLibraryUnused(isolation: String) throws {
        let workspace = try Workspace("rust-panics-new")
        defer { workspace.remove() }
        try Cargo.buildPlugin("Tests/PlugboardTests/Fixtures/rust-panics", in: workspace.root, into: workspace.plugins)
        let (status, lines) = try run(workspace, isolation: isolation, [], environment: ["RUST_PANICS_IN_NEW": "1"])
        #expect(status == 3, "no plugin could be loaded: \(lines)")
        let load = try #require(lines.lazy.compactMap(\.load).first)
        #expect(load.status == .failed, "\(load)")
        #expect(load.failure?.message
                    == #"register_plugins returned false: plugin "\#(Self.panicsID)" not added: panic in new: boom in new"#, "\(load)")
    }
}
