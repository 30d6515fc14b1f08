import Foundation
import Plugboard
@testable import plugboard
import Testing

/// Old plugins keep working: a plugin compiled against the public headers of every released ABI
/// minor (Fixtures/abi-history, pinned by its SHA256SUMS) is loaded by today's host in both isolation
/// modes, answers every event it takes part in, and its services work; the host never reads past
/// the sizes it declared (its structures end at an inaccessible page); a plugin built for a newer
/// minor is refused with the versions named.
@Suite struct ABIHistoryTests {
    static let history = TestPaths.fixtures + "/abi-history"
    static let minors = ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5"]
    static let id = "com.example.abi-history"

    /// The minor's number: 3 for "1.3".
    static func number(_ minor: String) -> Int { Int(minor.dropFirst(2)) ?? 0 }

    /// What the plugin built for `minor` logs over launch, one URL and a memory warning.
    static func expectedLogs(_ minor: String) -> [String] {
        let number = Self.number(minor)
        var logs = ["launched, built for \(minor)", "open-url"]
        if number >= 1 { logs.append("files: minor \(number)") }
        if number >= 2 { logs.append("invoke: 42") }
        if number >= 4 { logs.append("prepared: 42 10") }
        if number >= 3 { logs.append("bus: received com.example.abi.ping") }
        return logs + ["memory-warning"]
    }

    @Test(arguments: minors, ["process", "none"])
    func aPluginBuiltForEachReleasedMinorLoadsAndWorks(minor: String, isolation: String) throws {
        let workspace = try Workspace("abi-\(minor)-\(isolation)")
        defer { workspace.remove() }
        try PluginCompiler.compile(TestPaths.fixtures + "/abi_history_plugin.c", to: workspace.plugins + "/libabi.so",
                                   include: Self.history + "/" + minor)
        let events = try workspace.events([#"{"event":"memory-warning"}"#])
        let result = try CLI.run(["run", "--json", "--isolation", isolation, "--plugin-dir", workspace.plugins,
                                  "--container", workspace.root.file("container"), "--open-url", "myapp://x", "--events", events])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let lines = try #require(CLI.runLines(result.output), "\(result.output)\n\(result.errorOutput)")
        let load = try #require(lines.compactMap(\.load).first)
        #expect(load.status == .loaded && load.abi?.version.description == minor, "\(load)")
        #expect(lines.logs(of: Self.id) == Self.expectedLogs(minor), "\(result.output)")
        let opened = try #require(lines.compactMap(\.event).first { $0.event.name == "open-url" })
        #expect(opened.decidedBy.map(\.rawValue) == [Self.id])
        if Self.number(minor) >= 3 {
            #expect(lines.compactMap(\.state).last?.entries.map(\.outcome) == [.saved], "saved state works")
        }
    }

    @Test func theReleasedHeadersAreUnchanged() throws {
        let result = try PlugboardTests.run("/usr/bin/env", ["sha256sum", "--check", "--quiet", "SHA256SUMS"],
                                            workingDirectory: Self.history)
        #expect(result.status == 0, "a released header changed:\n\(result.output)\(result.errorOutput)")
    }

    @Test func everyReleasedMinorHasItsHeaders() throws {
        for minor in 0...ABIVersion.host.minor {
            let header = Self.history + "/1.\(minor)/plugboard/version.h"
            let text = try String(contentsOfFile: header, encoding: .utf8)
            #expect(text.contains("#define PB_ABI_VERSION_MINOR \(minor)u"),
                    "no headers of ABI 1.\(minor) in Fixtures/abi-history (see its README)")
        }
        #expect(Self.minors.count == Int(ABIVersion.host.minor) + 1)
    }

    @Test(arguments: ["process", "none"])
    func aPluginBuiltForANewerMinorIsRefusedWithTheVersionsNamed(isolation: String) throws {
        let workspace = try Workspace("abi-newer-\(isolation)")
        defer { workspace.remove() }
        let newer = ABIVersion.host.minor + 1
        try PluginCompiler.compile(TestPaths.fixtures + "/abi_history_plugin.c", to: workspace.plugins + "/libabi.so",
                                   flags: ["-DABI_CLAIM_MINOR=\(newer)u"])
        let result = try CLI.run(["run", "--json", "--isolation", isolation, "--plugin-dir", workspace.plugins,
                                  "--container", workspace.root.file("container")])
        let load = try #require(CLI.runLines(result.output)?.compactMap(\.load).first, "\(result.output)")
        #expect(load.status == .failed)
        #expect(load.failure?.message.contains("plugin built for ABI 1.\(newer), newer than the host's 1.\(ABIVersion.host.minor)") == true,
                "\(String(describing: load.failure))")
    }
}
