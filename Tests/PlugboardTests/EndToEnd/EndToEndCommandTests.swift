import CPlugboard
import Foundation
import Glibc
import Testing
@testable import Plugboard

/// `plugboard inspect`: one library in detail.
@Suite struct EndToEndInspectTests {
    @Test func inspectShowsABIStructSizesPluginsAndConcerns() throws {
        let workspace = try Workspace("inspect")
        defer { workspace.remove() }
        let file = try workspace.plugin("two.so", ["FIX_ID=\"com.inspect.one\"", "FIX_SECOND_ID=\"com.inspect.two\"", "FIX_PRIORITY=5",
                                                   "FIX_LAUNCH=1", "FIX_OPEN_URL=1", "FIX_TERMINATE"])

        let result = try CLI.run(["inspect", file, "--json"])
        #expect(result.status == 0, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        let document = try #require(jsonObject(result.output), "not JSON:\n\(result.output)")
        #expect(document.object("hostABI")?.int("major") == 1 && document.object("hostABI")?.int("minor") == Int(ABIVersion.host.minor), "\(result.output)")
        let library = try #require(document.object("library"), "\(result.output)")
        #expect(library.string("path") == file)
        #expect(library.string("status") == "loaded")
        #expect(library["failure"] == nil)
        let abi = try #require(library.object("abi"), "\(result.output)")
        #expect(abi.object("version")?.int("major") == 1 && abi.object("version")?.int("minor") == Int(ABIVersion.host.minor), "\(abi)")
        let sizes = try #require(abi.object("structSizes"), "\(abi)")
        let expectedSizes = ["pb_entry_t": MemoryLayout<pb_entry_t>.size, "pb_plugin_t": MemoryLayout<pb_plugin_t>.size,
                             "pb_launch_t": MemoryLayout<pb_launch_t>.size, "pb_open_url_t": MemoryLayout<pb_open_url_t>.size,
                             "pb_termination_t": MemoryLayout<pb_termination_t>.size]
        #expect(sizes.mapValues { ($0 as? NSNumber)?.intValue ?? -1 } == expectedSizes, "\(sizes)")
        let plugins = try #require(library.objects("plugins"), "\(result.output)")
        try #require(plugins.count == 2, "\(result.output)")
        #expect(plugins.map { $0.object("descriptor")?.string("id") } == ["com.inspect.one", "com.inspect.two"])
        for plugin in plugins {
            let descriptor = plugin.object("descriptor") ?? [:]
            #expect(descriptor.string("name") == "Fixture" && descriptor.string("version") == "1.0" && descriptor.int("priority") == 5,
                    "\(descriptor)")
            #expect(plugin["concerns"] as? [String] == ["launch", "open-url", "termination"], "\(plugin)")
            #expect(plugin.string("source") == file)
        }

        let human = try CLI.run(["inspect", file])
        #expect(human.status == 0)
        for line in ["File          \(file)", "Status        loaded", "ABI           \(ABIVersion.host) (host \(ABIVersion.host))", "Plugins       2",
                     "  com.inspect.one", "  com.inspect.two", "    Priority      5", "    Concerns      launch, open-url, termination"] {
            #expect(human.output.contains(line + "\n"), "lacks \(String(reflecting: line)):\n\(human.output)")
        }
        #expect(human.output.contains("Struct sizes  pb_entry_t \(MemoryLayout<pb_entry_t>.size), pb_launch_t"), "\(human.output)")
    }

    @Test func inspectOfABadFileShowsTheStagedError() throws {
        let workspace = try Workspace("inspect-bad")
        defer { workspace.remove() }
        let file = try workspace.plugin("major.so", ["FIX_ID=\"com.bad.major\"", "FIX_ABI_MAJOR=2", "FIX_TERMINATE"])

        let human = try CLI.run(["inspect", file])
        #expect(human.status == 1, "exit \(human.status)\n\(human.output)")
        for line in ["Status        failed", "Stage         version",
                     "Error         ABI major version mismatch: field abi_major, plugin 2, host 1", "ABI           2.\(ABIVersion.host.minor) (host \(ABIVersion.host))",
                     "Plugins       0"] {
            #expect(human.output.contains(line + "\n"), "lacks \(String(reflecting: line)):\n\(human.output)")
        }

        let json = try CLI.run(["inspect", file, "--json"])
        #expect(json.status == 1)
        let library = try #require(jsonObject(json.output)?.object("library"), "\(json.output)")
        #expect(library.string("status") == "failed")
        #expect(library.object("failure")?.string("stage") == "version", "\(library)")
        #expect(library.object("abi")?.object("version")?.int("major") == 2, "\(library)")

        let text = workspace.root.file("text.so")
        try "hello\n".write(toFile: text, atomically: false, encoding: .utf8)
        let textResult = try CLI.run(["inspect", text])
        #expect(textResult.status == 1)
        #expect(textResult.output.contains("Stage         open\n") && textResult.output.contains("the file is text, not ELF"),
                "\(textResult.output)")

        let missing = try CLI.run(["inspect", workspace.root.file("missing.so"), "--json"])
        #expect(missing.status == 1)
        let failure = jsonObject(missing.output)?.object("library")?.object("failure")
        #expect(failure?.string("stage") == "scan" && failure?.string("message")?.contains("does not exist") == true, "\(missing.output)")
    }
}

/// `PLUGBOARD_PLUGIN_PATH`: used without `--plugin-dir`, ignored with one.
@Suite struct EndToEndSearchPathTests {
    @Test func environmentListIsUsedWithoutFlagsAndIgnoredWithOne() throws {
        let workspace = try Workspace("env")
        defer { workspace.remove() }
        let a = workspace.root.file("a"), b = workspace.root.file("b")
        for directory in [a, b] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false) }
        try workspace.plugin("p.so", EndToEndRunTests.app.map { $0.replacingOccurrences(of: "com.e2e.app", with: "com.env.a") }, in: a)
        try workspace.plugin("p.so", EndToEndRunTests.app.map { $0.replacingOccurrences(of: "com.e2e.app", with: "com.env.b") }, in: b)
        try workspace.plugin("p.so", EndToEndRunTests.app.map { $0.replacingOccurrences(of: "com.e2e.app", with: "com.env.flag") })
        let environment = ["PLUGBOARD_PLUGIN_PATH": "\(a):\(b)"]

        func ids(_ result: ProcessResult) throws -> [String] {
            try CLI.libraries(result).flatMap { ($0.objects("plugins") ?? []).compactMap { $0.object("descriptor")?.string("id") } }
        }

        let fromEnvironment = try CLI.run(["list", "--json"], environment: environment)
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.output)\n\(fromEnvironment.errorOutput)")
        #expect(jsonObject(fromEnvironment.output)?["searchPath"] as? [String] == [a, b], "\(fromEnvironment.output)")
        #expect(try ids(fromEnvironment) == ["com.env.a", "com.env.b"])

        let withFlag = try CLI.run(["list", "--json", "--plugin-dir", workspace.plugins], environment: environment)
        #expect(withFlag.status == 0)
        #expect(jsonObject(withFlag.output)?["searchPath"] as? [String] == [workspace.plugins], "\(withFlag.output)")
        #expect(try ids(withFlag) == ["com.env.flag"])

        let run = try CLI.run(["run"], environment: environment)
        #expect(run.status == 0, "\(run.output)\n\(run.errorOutput)")
        #expect(CLI.pluginLogs(run.output).filter { $0.hasSuffix(": will-finish-launching") }
                    == ["com.env.a: will-finish-launching", "com.env.b: will-finish-launching"], "\(run.output)")

        // A directory named in the variable is explicit: missing, it is reported.
        let missing = workspace.root.file("missing")
        let withMissing = try CLI.run(["list", "--json"], environment: ["PLUGBOARD_PLUGIN_PATH": "\(a):\(missing)"])
        #expect(withMissing.status == 1)
        let libraries = try CLI.libraries(withMissing)
        #expect(libraries.map { $0.string("path") } == [a + "/p.so", missing], "\(withMissing.output)")
        #expect(libraries.last?.object("failure")?.string("stage") == "scan")

        // Nothing loadable in the variable's directories: run exits 3, as with flags.
        let none = try CLI.run(["run"], environment: ["PLUGBOARD_PLUGIN_PATH": missing])
        #expect(none.status == 3, "\(none.output)")
    }
}

/// Every command's `--help` lists the exit codes.
@Suite struct EndToEndHelpTests {
    @Test(arguments: [[], ["run"], ["list"], ["inspect"]])
    func helpListsTheExitCodes(_ command: [String]) throws {
        let result = try CLI.run(command + ["--help"])
        #expect(result.status == 0, "exit \(result.status)\n\(result.errorOutput)")
        let text = result.output.collapsingWhitespace
        for words in ["Exit codes: 0 success", "1 a library failed to load", "2 launch vetoed", "3 plugins were asked for but none loaded",
                      "4 plugins were asked for and a library or directory among them failed to load",
                      "64 usage error", "74 the report could not be written", "128+N interrupted by signal N"] {
            #expect(text.contains(words), "help lacks \(String(reflecting: words)):\n\(result.output)")
        }
    }

    /// The README lists `note` among the `run --json` line types, and `run` prints notes
    /// (no plugin loaded, a signal, unreadable events); `run --help` should list it too.
    @Test func runHelpListsEveryJSONLineType() throws {
        let result = try CLI.run(["run", "--help"])
        let text = result.output.collapsingWhitespace
        let sentence = try #require(text.range(of: "with a \"type\" of ").map { String(text[$0.upperBound...].prefix(200)) },
                                    "\(result.output)")
        for type in CLI.documentedLineTypes.sorted() {
            #expect(sentence.contains(type), "run --help's list of JSON line types lacks \(type): \(sentence)")
        }
    }
}
