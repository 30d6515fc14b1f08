import Testing
@testable import Plugboard

/// The example pair: plugins/unit-user calls plugins/unit-converter's `convert` at launch and logs
/// the answer, with the real `plugboard run` in process and in workers. The CLI loads every library
/// one way, so "one of each" goes through the host library (`loadLibrary(at:placement:)`: one library in a worker, the other here).
@Suite struct UnitUserExampleTests {
    static let answer = "com.example.unit-user: 3 ft = 0.9144 m (com.example.units.convert)"

    /// Both examples built as plugins/demo.sh builds them (and warning-free), into `directory`.
    static func build(into directory: String, converter: Bool = true) throws -> (user: String, converter: String) {
        let root = TestPaths.packageRoot.appendingPathComponent("plugins").path
        let flags = ["-pedantic", "-O2"]
        let user = try PluginCompiler.compile(root + "/unit-user/unit_user.c", to: directory + "/unit-user.so", flags: flags)
        let converterPath = directory + "/unit-converter.so"
        if converter {
            try PluginCompiler.compile(root + "/unit-converter/unit_converter.c", to: converterPath, flags: flags)
        }
        return (user, converterPath)
    }

    @Test(arguments: ["none", "process"])
    func thePairRunsWithPlugboardRun(isolation: String) throws {
        let workspace = try Workspace("unit-user-\(isolation)")
        defer { workspace.remove() }
        _ = try Self.build(into: workspace.plugins)
        let result = try CLI.run(["run", "--isolation", isolation, "--plugin-dir", workspace.plugins])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        #expect(CLI.pluginLogs(result.output).contains(Self.answer), "\(result.output)")
    }

    @Test(arguments: [true, false])
    func thePairRunsWithOneInAWorkerAndOneInProcess(userInWorker: Bool) throws {
        let directory = try TemporaryDirectory("plugboard-unit-user-mixed")
        defer { directory.remove() }
        let (user, converter) = try Self.build(into: directory.path)
        let log = LogLines()
        let host = PluginHost { record in log.lines.withLock { $0.append("\(record.plugin ?? record.source): \(record.message)") } }
        defer { host.shutdown() }
        let worker = TestPaths.worker
        let reports = userInWorker
            ? [host.loadLibrary(at: user, placement: .workers(worker: worker)), host.loadLibrary(at: converter)]
            : [host.loadLibrary(at: user), host.loadLibrary(at: converter, placement: .workers(worker: worker))]
        for report in reports { try #require(report.status == .loaded, "\(report)") }
        #expect(host.didFinishLaunching().accepted == true)
        let lines = log.lines.withLock { $0 }
        #expect(lines.contains(Self.answer), "\(lines)")
    }

    /// Without the converter the user says why and still launches.
    @Test func withoutTheConverterTheUserSaysWhy() throws {
        let workspace = try Workspace("unit-user-alone")
        defer { workspace.remove() }
        _ = try Self.build(into: workspace.plugins, converter: false)
        let result = try CLI.run(["run", "--isolation", "none", "--plugin-dir", workspace.plugins])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        #expect(CLI.pluginLogs(result.output).contains(
            "com.example.unit-user: cannot convert (status -4): com.example.units.convert: no plugin com.example.units is loaded"),
            "\(result.output)")
    }
}
