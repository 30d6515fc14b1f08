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

    /// A built-in plugin that runs `act` in its memory warning and in its save_state.
    private struct Acting: MemoryWarningPlugin, SavedStatePlugin {
        let descriptor: PluginDescriptor
        let act: @Sendable () -> Void

        init(_ id: String, priority: Int32, _ act: @escaping @Sendable () -> Void) throws {
            descriptor = PluginDescriptor(id: try PluginID(validating: id), priority: priority)
            self.act = act
        }

        func didReceiveMemoryWarning() { act() }
        func saveState() -> [UInt8]? {
            act()
            return nil
        }
        func restoreState(_ state: [UInt8], savedVersion: String) -> Bool { true }
    }

    /// Shuts the host down and logs what that returned.
    private static func shutDown(_ reference: HostReference, _ log: CallLog) -> @Sendable () -> Void {
        { log.record("shutdown answered \(reference.host?.shutdown() ?? ["no host"])") }
    }

    /// Logs how many plugins the host still has, at `what` (a save, a delivery).
    private static func count(_ what: String, _ reference: HostReference, _ log: CallLog) -> @Sendable () -> Void {
        { log.record("plugins at \(what): \(reference.host?.plugins.count ?? -1)") }
    }

    @Test func aCLibraryStillToBeCalledIsCalledBeforeItsDeinit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try PluginCompiler.fixture("after.so", in: directory, [#"FIX_ID="com.c.after""#, "FIX_PRIORITY=1", "FIX_BROADCASTS"])
        let log = CallLog()
        let reference = HostReference()
        let host = PluginHost { record in log.record("\(record.plugin ?? "-") \(record.message)") }
        reference.host = host
        try host.register(try Acting("com.a.shutdown", priority: 9, Self.shutDown(reference, log)))
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
        try host.register(try Acting("com.a.shutdown", priority: 9, Self.shutDown(reference, log)))
        try host.register(try Acting("com.b.counting", priority: 1, Self.count("save", reference, log)))

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
        try host.register(try Acting("com.b.counting", priority: 1, Self.count("save", reference, log)))
        let (shutDown, count) = (Self.shutDown(reference, log), Self.count("delivery", reference, log))
        _ = try host.observe("com.example.stop") { _ in shutDown() }
        _ = try host.observe("com.example.stop") { _ in count() }
        try host.post("com.example.stop")

        #expect(host.deliverNotifications().deliveries.count == 2)
        #expect(log.all == ["shutdown answered []", "plugins at delivery: 1"])
        #expect(host.plugins.isEmpty)
    }
}
