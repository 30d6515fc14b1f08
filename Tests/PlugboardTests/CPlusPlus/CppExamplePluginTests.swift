import Foundation
import Testing
@testable import Plugboard
@testable import plugboard

/// plugins/theme-switcher, the C++ example written with <plugboard/cpp/plugin.hpp>,
/// compiled with c++ and driven through the real `plugboard` binary.
@Suite struct CppExamplePluginTests {
    private static let id = "com.example.theme-switcher"

    /// Compiles the example into `workspace.plugins/theme-switcher.so`.
    @discardableResult
    private func buildExample(in workspace: Workspace) throws -> String {
        let source = TestPaths.packageRoot.appendingPathComponent("plugins/theme-switcher/theme_switcher.cpp").path
        return try PluginCompiler.compile(source, to: workspace.plugins + "/theme-switcher.so", flags: ["-pedantic"],
                                          cplusplus: true)
    }

    /// `plugboard run --json` over the workspace with `events`; the output's lines.
    private func run(_ workspace: Workspace, isolation: String, _ events: [String]) throws -> [RunLine] {
        let result = try CLI.run(["run", "--isolation", isolation, "--json", "--plugin-dir", workspace.plugins,
                                  "--container", workspace.root.file("container"), "--events", try workspace.events(events)])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        return try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
    }

    private func events(_ lines: [RunLine], _ name: String) -> [EventReport] {
        lines.events(named: name)
    }

    private func logs(_ lines: [RunLine]) -> [String] {
        lines.logs(of: Self.id)
    }

    @Test(arguments: ["none", "process"])
    func answersEveryEventItTakesPartIn(isolation: String) throws {
        let workspace = try Workspace("cpp-example")
        defer { workspace.remove() }
        try buildExample(in: workspace)

        let first = try run(workspace, isolation: isolation, [
            #"{"event":"open-url","url":"myapp://theme/dark"}"#,
            #"{"event":"open-url","url":"https://example.com/"}"#,
            #"{"event":"open-url","url":"myapp://theme/neon"}"#,
            #"{"event":"remote-notification","userInfo":{"theme":"sepia"}}"#,
            #"{"event":"remote-notification","userInfo":{"aps":{}}}"#,
        ])
        let load = try #require(first.lazy.compactMap(\.load).first)
        #expect(load.status == .loaded)
        let launch = events(first, "did-finish-launching").first
        #expect(launch?.answer == .bool(true))
        let urls = events(first, "open-url")
        #expect(urls.map(\.accepted) == [true, false, false])
        #expect(urls.first?.decidedBy.map(\.rawValue) == [Self.id])
        #expect(events(first, "remote-notification").map(\.answer) == [.fetch(.newData), .fetch(.noData)])
        #expect(events(first, "will-terminate").count == 1)
        #expect(logs(first) == ["theme light", "theme dark",
                                "exception in open_url: unknown theme 'neon'; answered not handled"])

        // will_terminate saved the theme in the container; the next launch reads it back.
        let saved = try String(contentsOfFile: workspace.root.file("container/Library/theme"), encoding: .utf8)
        #expect(saved == "dark")
        let second = try run(workspace, isolation: isolation, [])
        #expect(logs(second) == ["theme dark"])
    }

    @Test func listShowsOnlyTheConcernsTheClassDeclares() throws {
        let workspace = try Workspace("cpp-example-list")
        defer { workspace.remove() }
        try buildExample(in: workspace)
        let result = try CLI.run(["list", "--json", "--plugin-dir", workspace.plugins])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        let plugins = try #require(CLI.libraries(result).first?.objects("plugins"))
        #expect(plugins.map { $0.object("descriptor")?.string("id") } == [Self.id])
        #expect(plugins.first?["concerns"] as? [String] == ["launch", "open-url", "remote-notifications", "termination"])
        let functions = plugins.first?.objects("functions") ?? []
        #expect(functions.map { [$0.string("name"), $0.string("signature")] } == [["is_known", "bool (string)"]])
    }

    /// The example's function, through the engine in process.
    @Test func itsFunctionAnswersByName() throws {
        let workspace = try Workspace("cpp-example-call")
        defer { workspace.remove() }
        let host = PluginHost()
        defer { host.shutdown() }
        let report = host.loadLibrary(at: try buildExample(in: workspace))
        try #require(report.status == .loaded, "\(report)")
        #expect(try host.call("\(Self.id).is_known", [.string("sepia")]) == .bool(true))
        #expect(try host.call("\(Self.id).is_known", [.string("neon")]) == .bool(false))
        let called = try CLI.run(["call", "--plugin-dir", workspace.plugins, "--isolation", "none", "\(Self.id).is_known", "dark"])
        #expect(called.status == 0 && called.output == "true\n", "\(called.output)\(called.errorOutput)")
    }

    /// Nothing of the helper or of the plugin is exported but `plugboard_entry`. The library may also
    /// export (weak) instantiations of libstdc++ templates, which keep default visibility whatever
    /// -fvisibility says; README.md (C++) says so and how to hide them too.
    @Test func theLibraryExportsNothingOfItsOwnButTheEntrySymbol() throws {
        let workspace = try Workspace("cpp-example-nm")
        defer { workspace.remove() }
        let library = try buildExample(in: workspace)
        let result = try PlugboardTests.run("/usr/bin/env", ["nm", "-D", "-C", "--defined-only", library])
        let symbols = result.output.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 2).last.map(String.init) ?? "" }
            .filter { !["__bss_start", "_edata", "_end", "_init", "_fini"].contains($0) && !$0.hasPrefix("std::")
                && !$0.hasPrefix("void std::") }
        #expect(symbols == ["plugboard_entry"], "\(result.output)")
    }
}
