import Testing
@testable import Plugboard

/// `Fixtures/functions_plugin.c` built into a fresh directory and loaded into an in-process host.
struct FunctionsFixture {
    let directory: TemporaryDirectory
    let library: String
    let host: PluginHost
    let report: LoadReport

    init() throws {
        directory = try TemporaryDirectory("plugboard-functions")
        library = try PluginCompiler.compile(TestPaths.fixtures + "/functions_plugin.c", to: directory.file("libfunctions.so"))
        host = PluginHost()
        report = host.loadLibrary(at: library)
        try #require(report.status == .loaded, "\(report)")
    }

    /// Calls `plugin.function` (plugin defaults to com.example.functions).
    func call(_ function: String, _ arguments: [PluginValue], plugin: String = "com.example.functions") throws(PluginCallError) -> PluginValue {
        try host.call("\(plugin).\(function)", arguments)
    }

    /// The error of a call that must fail.
    func failure(_ function: String, _ arguments: [PluginValue], plugin: String = "com.example.functions") -> PluginCallError? {
        do {
            let value = try call(function, arguments, plugin: plugin)
            Issue.record("\(plugin).\(function) returned \(value) instead of failing")
            return nil
        } catch {
            return error
        }
    }

    func remove() {
        host.shutdown()
        directory.remove()
    }
}
