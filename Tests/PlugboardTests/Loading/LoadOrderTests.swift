import Foundation
import Testing
@testable import Plugboard

/// The order a host runs the stages of many libraries loaded in process, as README's loading rules
/// say: each library's constructors and `plugboard_entry` as it is opened, every library opened
/// before the first one's `init`, then each one's `init` and `register_plugins`, in the folder's order.
@Suite struct LoadOrderTests {
    @Test func eachLibraryIsOpenedAndAskedForItsEntryBeforeTheFirstInit() throws {
        let folder = try OrderFolder(names: ["a", "b", "c"])
        defer { folder.remove() }
        let host = PluginHost()
        defer { host.shutdown() }
        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [folder.plugins]))
        #expect(reports.map(\.status) == [.loaded, .loaded, .loaded], "\(reports.map { $0.failure.map(\.description) })")

        let opened = folder.names.flatMap { ["constructor \($0)", "entry \($0)"] }
        let started = folder.names.flatMap { ["init \($0)", "register \($0)"] }
        #expect(try folder.stages() == opened + started)
    }

    /// A library one host holds runs no stage when another host of the process loads it too, its
    /// entry included: its stages ran once, for the first, and run one at a time.
    @Test func aLibraryAnotherHostHoldsIsNotAskedForItsEntryAgain() throws {
        let folder = try OrderFolder(names: ["a"])
        defer { folder.remove() }
        let first = PluginHost()
        defer { first.shutdown() }
        let second = PluginHost()
        defer { second.shutdown() }
        for host in [first, second] {
            let reports = host.loadPlugins(from: PluginSearchPath(explicit: [folder.plugins]))
            #expect(reports.map(\.status) == [.loaded], "\(reports.map { $0.failure.map(\.description) })")
            #expect(host.plugins.map(\.descriptor.id.rawValue) == ["org.order.a"])
        }
        #expect(try folder.stages() == ["constructor a", "entry a", "init a", "register a"])
    }

    /// A host that loads a library while another host's shutdown runs its `deinit` waits for the
    /// `deinit` to end before the library's entry and `init` run again: a library's stages run one
    /// at a time, whichever hosts' threads call them.
    @Test func aLibraryIsStartedAgainOnlyAfterItsDeinitEnds() throws {
        let folder = try OrderFolder(names: ["a"], flags: ["-DORDER_DEINIT_MS=300"])
        defer { folder.remove() }
        let plugins = folder.plugins
        let firstEnded = DispatchSemaphore(value: 0)
        let first = Thread {
            let host = PluginHost()
            _ = host.loadPlugins(from: PluginSearchPath(explicit: [plugins]))
            host.shutdown()
            firstEnded.signal()
        }
        first.start()
        let deadline = ContinuousClock.now + .seconds(10)
        while try !folder.stages().contains("deinit-begin a"), ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let second = PluginHost()
        defer { second.shutdown() }
        let reports = second.loadPlugins(from: PluginSearchPath(explicit: [plugins]))
        #expect(reports.map(\.status) == [.loaded], "\(reports.map { $0.failure.map(\.description) })")
        #expect(firstEnded.wait(timeout: .now() + 10) == .success)
        let stages = try folder.stages()
        #expect(stages == ["constructor a", "entry a", "init a", "register a", "deinit-begin a", "deinit-end a",
                           "entry a", "init a", "register a"], "\(stages)")
    }
}

/// A folder of libraries built from `load_order_plugin.c`, one per name, noting their stages in one file.
private struct OrderFolder {
    let scratch: TemporaryDirectory
    let names: [String]
    var plugins: String { scratch.file("plugins") }
    private var log: String { scratch.file("stages.log") }

    init(names: [String], flags: [String] = []) throws {
        scratch = try TemporaryDirectory("plugboard-load-order")
        self.names = names
        try FileManager.default.createDirectory(atPath: scratch.file("plugins"), withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        for name in names {
            _ = try PluginCompiler.compile(TestPaths.fixtures + "/load_order_plugin.c", to: plugins + "/\(name).so",
                                           flags: ["-DORDER_NAME=\"\(name)\"", "-DORDER_LOG=\"\(log)\""] + flags)
        }
    }

    /// The stages the libraries noted, in order.
    func stages() throws -> [String] {
        guard FileManager.default.fileExists(atPath: log) else { return [] }
        return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    func remove() { scratch.remove() }
}
