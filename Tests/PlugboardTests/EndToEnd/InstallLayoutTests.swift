import Foundation
import Plugboard
@testable import plugboard
import Testing

/// `plugboard` installed as `<prefix>/bin/plugboard` finds its worker where an install puts helper
/// programs, `<prefix>/libexec/plugboard/plugboard-worker`, with no environment variable.
@Suite struct InstallLayoutTests {
    /// A prefix with `bin/plugboard`, optionally `libexec/plugboard/plugboard-worker`, and a plugin.
    static func prefix(withWorker: Bool) throws -> (root: TemporaryDirectory, plugboard: String, plugins: String) {
        let root = try TemporaryDirectory("plugboard-install-layout")
        for folder in ["bin", "libexec/plugboard", "plugins"] {
            try FileManager.default.createDirectory(atPath: root.file(folder), withIntermediateDirectories: true)
        }
        let plugboard = root.file("bin/plugboard")
        try copyProgram(try CLI.binary(), to: plugboard)
        if withWorker {
            let worker = URL(fileURLWithPath: try CLI.binary()).deletingLastPathComponent().appendingPathComponent("plugboard-worker").path
            try copyProgram(worker, to: root.file("libexec/plugboard/plugboard-worker"))
        }
        try PluginCompiler.compile(TestPaths.fixtures + "/live_counter.c", to: root.file("plugins/liblive.so"))
        return (root, plugboard, root.file("plugins"))
    }

    static func run(_ plugboard: String, _ plugins: String, container: String) throws -> ProcessResult {
        var environment = TestPaths.hermeticEnvironment
        environment["PLUGBOARD_WORKER"] = nil
        environment["PLUGBOARD_PLUGIN_PATH"] = nil
        return try PlugboardTests.run(plugboard, ["run", "--json", "--plugin-dir", plugins, "--container", container,
                                                  "--open-url", "myapp://x"], environment: environment)
    }

    @Test func anInstalledPlugboardFindsItsWorkerInLibexec() throws {
        let (root, plugboard, plugins) = try Self.prefix(withWorker: true)
        defer { root.remove() }
        let result = try Self.run(plugboard, plugins, container: root.file("container"))
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let load = try #require(CLI.runLines(result.output)?.compactMap(\.load).first, "\(result.output)")
        #expect(load.status == .loaded && load.sandbox?.mode != "in-process", "loaded in a worker: \(load)")
    }

    @Test func withoutAWorkerTheUsageErrorNamesWhereItLooked() throws {
        let (root, plugboard, plugins) = try Self.prefix(withWorker: false)
        defer { root.remove() }
        let result = try Self.run(plugboard, plugins, container: root.file("container"))
        #expect(result.status == 64, "\(result.output)\n\(result.errorOutput)")
        let looked = [root.file("bin/plugboard-worker"), root.file("libexec/plugboard/plugboard-worker")]
            .map { $0.replacingOccurrences(of: "//", with: "/") }
        #expect(result.errorOutput.contains("none of \(looked[0]), \(looked[1]) is one"), "\(result.errorOutput)")
    }
}
