import Foundation
import Plugboard
@testable import plugboard
import Testing

/// The bundled examples, built the way plugins/demo.sh builds them, driven
/// through the real binary with the demo's events: what a newcomer sees.
@Suite struct ExamplePluginTests {
    private static let examples = ["deeplink-router", "notification-logger", "app-lifecycle-pair", "url-history"]

    private func buildExamples(into directory: TemporaryDirectory) throws {
        for name in Self.examples {
            let folder = TestPaths.packageRoot.appendingPathComponent("plugins/\(name)").path
            let sources = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".c") }
            #expect(sources.count == 1, "one C file in plugins/\(name)")
            for source in sources {
                try PluginCompiler.compile(folder + "/" + source, to: directory.file(name + ".so"), flags: ["-pedantic"])
            }
        }
    }

    @Test func theDemoEventsShowEachExampleAtWork() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try buildExamples(into: directory)
        let script = TestPaths.packageRoot.appendingPathComponent("plugins/demo-events.jsonl").path
        let result = try run(TestPaths.plugboard, ["run", "--plugin-dir", directory.path, "--events", script, "--json",
                                                   "--container", directory.file("container")])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        let lines = try #require(CLI.runLines(result.output), "a line is not a run line:\n\(result.output)")
        let loads = lines.compactMap(\.load)
        #expect(loads.count == Self.examples.count)
        #expect(loads.allSatisfy { $0.status == .loaded })
        let events = lines.events
        let names = lines.eventNames
        #expect(names.first == "will-finish-launching")
        #expect(names.dropFirst().first == "did-finish-launching")
        #expect(names.last == "will-terminate")
        let urls = lines.events(named: "open-url")
        #expect(urls.first?.decidedBy.map(\.rawValue) == ["com.example.deeplink-router"])
        let notification = events.first { $0.event == .remoteNotification }
        #expect(notification?.answer == .fetch(.newData))
        #expect(names.contains("memory-warning"))
        let logs = lines.compactMap(\.log).map(\.message)
        #expect(logs.contains("route item 42"))
        #expect(lines.last?.exitCode != nil)
    }

    @Test func examplesExportOnlyTheEntrySymbol() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try buildExamples(into: directory)
        for name in Self.examples {
            let result = try run("/usr/bin/env", ["nm", "-D", "--defined-only", directory.file(name + ".so")])
            let ours = result.output.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
                .filter { !["__bss_start", "_edata", "_end", "_init", "_fini"].contains($0) }
            #expect(ours == ["plugboard_entry"], "\(name): \(result.output)")
        }
    }
}
