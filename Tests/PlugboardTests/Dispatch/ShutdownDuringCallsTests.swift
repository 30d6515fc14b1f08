import PlugboardFiles
import Testing
@testable import Plugboard

/// `shutdown()` called while the host calls plugins (from a Swift plugin's callback or an observer of
/// the application) waits until that event, delivery or saved-state operation returns: the plugins
/// still to be called in it are called first, their libraries still running, and none after.
@Suite struct ShutdownDuringCallsTests {
    /// The host, for the callbacks that reach it; used from the dispatch thread only.
    private final class HostReference: @unchecked Sendable {
        weak var host: PluginHost?
    }

    /// Shuts the host down in its memory warning and in its save_state, and logs what that returned.
    private struct ShuttingDown: MemoryWarningPlugin, SavedStatePlugin {
        let descriptor: PluginDescriptor
        let reference: HostReference
        let log: CallLog

        init(_ reference: HostReference, log: CallLog) throws {
            descriptor = PluginDescriptor(id: try PluginID(validating: "com.a.shutdown"), priority: 9)
            self.reference = reference
            self.log = log
        }

        func didReceiveMemoryWarning() { shutDown() }
        func saveState() -> [UInt8]? {
            shutDown()
            return nil
        }
        func restoreState(_ state: [UInt8], savedVersion: String) -> Bool { true }

        private func shutDown() {
            log.record("shutdown answered \(reference.host?.shutdown() ?? ["no host"])")
        }
    }

    /// Logs, in its save_state, how many plugins the host still has.
    private struct Counting: SavedStatePlugin {
        let descriptor: PluginDescriptor
        let reference: HostReference
        let log: CallLog

        init(_ reference: HostReference, log: CallLog) throws {
            descriptor = PluginDescriptor(id: try PluginID(validating: "com.b.counting"), priority: 1)
            self.reference = reference
            self.log = log
        }

        func saveState() -> [UInt8]? {
            log.record("plugins at save: \(reference.host?.plugins.count ?? -1)")
            return nil
        }
        func restoreState(_ state: [UInt8], savedVersion: String) -> Bool { true }
    }

    @Test func aCLibraryStillToBeCalledIsCalledBeforeItsDeinit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try PluginCompiler.fixture("after.so", in: directory, [#"FIX_ID="com.c.after""#, "FIX_PRIORITY=1", "FIX_BROADCASTS"])
        let log = CallLog()
        let reference = HostReference()
        let host = PluginHost { record in log.record("\(record.plugin ?? "-") \(record.message)") }
        reference.host = host
        try host.register(try ShuttingDown(reference, log: log))
        try #require(host.loadPlugins(from: PluginSearchPath(explicit: [directory.path])).map(\.status) == [.loaded])

        let report = host.didReceiveMemoryWarning()
        #expect(report.calls.map(\.plugin.rawValue) == ["com.a.shutdown", "com.c.after"])
        #expect(report.calls.map(\.answer) == [.returned, .returned])
        #expect(log.all == ["shutdown answered []", "com.c.after memory-warning", "- deinit"])
        #expect(host.plugins.isEmpty)
        #expect(host.didReceiveMemoryWarning().calls.isEmpty)
        #expect(host.shutdown().isEmpty, "called again")
    }

    @Test func aSavedStatePassCallsEveryPluginBeforeTheHostShutsDown() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = SavedStateStore(facade: FileFacade(container: try Container(rootPath: directory.file("container"))))
        let log = CallLog()
        let reference = HostReference()
        let host = PluginHost()
        reference.host = host
        try host.register(try ShuttingDown(reference, log: log))
        try host.register(try Counting(reference, log: log))

        let report = host.saveState(to: store)
        #expect(report.entries.map(\.plugin.rawValue) == ["com.a.shutdown", "com.b.counting"])
        #expect(log.all == ["shutdown answered []", "plugins at save: 2"])
        #expect(host.plugins.isEmpty)
    }

    @Test func aDeliveryReachesEveryObserverBeforeTheHostShutsDown() throws {
        let log = CallLog()
        let reference = HostReference()
        let host = PluginHost()
        reference.host = host
        try host.register(try Counting(reference, log: log))
        _ = try host.observe("com.example.stop") { _ in
            log.record("shutdown answered \(reference.host?.shutdown() ?? ["no host"])")
        }
        _ = try host.observe("com.example.stop") { _ in
            log.record("plugins at delivery: \(reference.host?.plugins.count ?? -1)")
        }
        try host.post("com.example.stop")

        #expect(host.deliverNotifications().deliveries.count == 2)
        #expect(log.all == ["shutdown answered []", "plugins at delivery: 1"])
        #expect(host.plugins.isEmpty)
    }
}
