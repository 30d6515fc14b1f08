import Foundation
@testable import Plugboard
@testable import plugboard
import Testing

/// The Swift SDK end to end: the example plugin, built by SwiftPM as a `.dynamic` product of this
/// package, copied into a plugin folder and driven by the real `plugboard` binary.
@Suite struct SwiftPluginTests {
    static let isolations = ["process", "none"]
    static let pluginID = "com.example.swift-links"

    /// A workspace whose plugin folder holds a copy of the example; the copy's path.
    private func workspace(_ label: String) throws -> (Workspace, String) {
        let workspace = try Workspace(label)
        return (workspace, try SwiftPackageLibraries.copy(SwiftPackageLibraries.example, into: workspace.plugins))
    }

    private func run(_ workspace: Workspace, isolation: String, _ arguments: [String]) throws -> ProcessResult {
        try CLI.run(["run", "--plugin-dir", workspace.plugins, "--isolation", isolation, "--json",
                     "--container", workspace.root.file("container")] + arguments)
    }

    @Test(arguments: isolations) func theExampleOpensItsLinksAndLogsThroughItsLogger(isolation: String) throws {
        let (workspace, library) = try workspace("swift-example")
        defer { workspace.remove() }
        let result = try run(workspace, isolation: isolation, ["--open-url", "swiftapp://item/7", "--open-url", "https://example.com/"])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let lines = try #require(CLI.runLines(result.output), "a line is not a run line:\n\(result.output)")
        let load = try #require(lines.lazy.compactMap(\.load).first)
        #expect(load.path == library && load.status == .loaded, "\(load)")
        let plugin = try #require(load.plugins.first)
        #expect(plugin.concerns.map(\.rawValue) == ["open-url", "user-activity", "termination"], "\(plugin)")
        #expect(plugin.descriptor.version == "1.0.0", "\(plugin)")
        let urls = lines.events(named: "open-url")
        #expect(urls.map { $0.decidedBy.map(\.rawValue) } == [[Self.pluginID], []], "\(urls)")
        let logs = lines.compactMap(\.log).filter { $0.plugin == Self.pluginID }
        #expect(logs.map(\.message) == ["open item/7", "remembered 1 link(s)"], "\(lines)")
        #expect(logs.allSatisfy { $0.level == .info }, "\(logs)")
        let history = try String(contentsOfFile: workspace.root.file("container/Documents/swift-links.txt"), encoding: .utf8)
        #expect(history == "item/7\n")
    }

    /// `@Plugin`'s entries are the ones the host calls: the example's slots are C functions of its
    /// own type (the macro's closures, named after it), the probe's (built without it) the SDK's
    /// shared tables; both answer.
    @Test func theExamplesSlotsAreItsTypesOwnAndThoseOfAPluginWithoutTheMacroShared() throws {
        let (workspace, _) = try workspace("swift-own-entries")
        defer { workspace.remove() }
        try SwiftPackageLibraries.copy(SwiftPackageLibraries.probe, into: workspace.plugins)
        let host = PluginHost()
        defer { host.shutdown() }
        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [workspace.plugins]))
        try #require(reports.count == 2 && reports.allSatisfy { $0.status == .loaded }, "\(reports)")
        // glibc's `dladdr` (hidden from Swift's Glibc module, behind _GNU_SOURCE), and its `Dl_info`:
        // four pointers, the library's path and base address first. The slots are local symbols,
        // which `dladdr` does not name: `nm` does, from the library's full symbol table.
        typealias Dladdr = @convention(c) (UnsafeRawPointer?, UnsafeMutablePointer<UnsafeRawPointer?>?) -> Int32
        let dladdr = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "dladdr").map { unsafeBitCast($0, to: Dladdr.self) })
        func symbol(_ slot: UnsafeRawPointer?) throws -> String {
            var info = [UnsafeRawPointer?](repeating: nil, count: 4)
            guard let slot, dladdr(slot, &info) != 0, let path = info[0], let base = info[1] else { return "no library" }
            let offset = String(UInt(bitPattern: slot - base), radix: 16)
            let symbols = try PlugboardTests.run("/usr/bin/env", ["nm", "--defined-only", String(cString: path.assumingMemoryBound(to: CChar.self))])
            return symbols.output.split(separator: "\n").first { line in
                line.split(separator: " ").first.map { $0.drop { $0 == "0" } == offset } ?? false
            }.map(String.init) ?? "no symbol at \(offset)"
        }
        func openURLSlot(of id: String) throws -> String {
            let roster = host.registry.openURL
            let index = try #require(roster.members.ids.firstIndex { $0.rawValue == id }, "\(roster.members.ids)")
            guard case .native(let table, _, _) = roster.participants[index].participant else { return "not a C plugin in process" }
            return try symbol(unsafeBitCast(table.open_url, to: UnsafeRawPointer?.self))
        }
        // The rosters are ordered by the first event.
        #expect(host.open(url: "probe://count", options: "{}").decidedBy.map(\.rawValue) == ["com.example.swift-sdk-probe"])
        #expect(host.open(url: "https://example.com/", options: "{}").decidedBy.isEmpty)
        let own = try openURLSlot(of: Self.pluginID)
        #expect(own.contains("LinkHistory") && own.contains("pluginEntries") && !own.contains("ConcernTables"), "\(own)")
        let shared = try openURLSlot(of: "com.example.swift-sdk-probe")
        #expect(shared.contains("ConcernTables") && !shared.contains("pluginEntries"), "\(shared)")
    }

    /// A plugin registered as its `@Plugin` base class but made as a subclass that adopts one concern
    /// more: the base's entries serve the link, and the memory warning, which the base's module sees
    /// no conformance for, reaches the subclass through its conformance (it is neither lost nor
    /// answered by a slot that does nothing).
    @Test(arguments: isolations) func aSubclassesConcernReachesItThroughItsConformance(isolation: String) throws {
        let workspace = try Workspace("swift-entries-\(isolation)")
        defer { workspace.remove() }
        try SwiftPackageLibraries.copy(SwiftPackageLibraries.entries, into: workspace.plugins)
        let events = try workspace.events([#"{"event":"memory-warning"}"#])
        let result = try run(workspace, isolation: isolation, ["--open-url", "entries://one", "--events", events])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let lines = try #require(CLI.runLines(result.output), "a line is not a run line:\n\(result.output)")
        #expect(lines.logs(of: "com.example.swift-entries") == ["open entries://one as WarnedLinkPlugin", "memory warning"],
                "\(result.output)")
        #expect(lines.events(named: "open-url").map { $0.decidedBy.map(\.rawValue) } == [["com.example.swift-entries"]])
    }

    @Test func aTrapIsACrashTheWorkerReports() throws {
        let (workspace, library) = try workspace("swift-trap-process")
        defer { workspace.remove() }
        let result = try run(workspace, isolation: "process", ["--open-url", "swiftapp://trap"])
        let line = "\(Self.pluginID) crashed with SIGILL in open_url (\(library))"
        let lines = try #require(CLI.runLines(result.output), "a line is not a run line:\n\(result.output)")
        let url = try #require(lines.events(named: "open-url").first, "\(lines)")
        #expect(url.failures.first?.message == line, "\(url)")
        #expect(lines.events.contains { $0.event == .willTerminate }, "the host went on after the crash: \(lines)")
    }

    @Test func aTrapInProcessEndsTheHostWithAFaultLineNamingThePlugin() throws {
        let (workspace, library) = try workspace("swift-trap-none")
        defer { workspace.remove() }
        let result = try run(workspace, isolation: "none", ["--open-url", "swiftapp://trap"])
        #expect(result.status == 128 + SIGILL, "stderr:\n\(result.errorOutput)")
        let line = "plugboard: \(Self.pluginID) crashed with SIGILL in open_url (\(library))"
        #expect(result.errorOutput.components(separatedBy: line).count == 2, "stderr:\n\(result.errorOutput)")
    }

    /// The only C symbol is the entry; the rest of the dynamic symbols are Swift's (mangled `$s…`),
    /// which SwiftPM exports from every module linked into a `.dynamic` product.
    @Test func theExampleExportsOnlyTheEntryAsACSymbol() throws {
        let (workspace, library) = try workspace("swift-symbols")
        defer { workspace.remove() }
        let symbols = try PlugboardTests.run("/usr/bin/env", ["nm", "-D", "--defined-only", library]).output
            .split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        let linkerMarkers: Set<String> = ["__bss_start", "_edata", "_end"]
        #expect(symbols.filter { !$0.hasPrefix("$s") && !linkerMarkers.contains($0) } == ["plugboard_entry"], "\(symbols)")
    }
}
