import Foundation
import Testing
@testable import Plugboard

/// The order a host runs the stages of many libraries loaded in process, as README's loading rules
/// say: each library's constructors and `plugboard_entry` as it is opened, every library opened
/// before the first one's `init`, then each one's `init` and `register_plugins`, in the folder's order.
@Suite struct LoadOrderTests {
    @Test func eachLibraryIsOpenedAndAskedForItsEntryBeforeTheFirstInit() throws {
        let scratch = try TemporaryDirectory("plugboard-load-order")
        defer { scratch.remove() }
        let plugins = scratch.file("plugins")
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        let log = scratch.file("order.log")
        let names = ["a", "b", "c"]
        for name in names {
            _ = try PluginCompiler.compile(TestPaths.fixtures + "/load_order_plugin.c", to: plugins + "/\(name).so",
                                           flags: ["-DORDER_NAME=\"\(name)\"", "-DORDER_LOG=\"\(log)\""])
        }
        let host = PluginHost()
        defer { host.shutdown() }
        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [plugins]))
        #expect(reports.map(\.status) == [.loaded, .loaded, .loaded], "\(reports.map { $0.failure.map(\.description) })")

        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let opened = names.flatMap { ["constructor \($0)", "entry \($0)"] }
        let started = names.flatMap { ["init \($0)", "register \($0)"] }
        #expect(lines == opened + started)
    }
}
