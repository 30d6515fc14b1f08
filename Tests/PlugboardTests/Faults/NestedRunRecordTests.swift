import CFaultReporter
import Testing
@testable import Plugboard

/// A plugin call that runs a nested run of calls (a built-in plugin's callback dispatches an event,
/// or calls a plugin function) is named in the host's call record again when the nested run ends,
/// so that a fault or a timeout in the rest of its callback still names the plugin and callback.
@Suite struct NestedRunRecordTests {
    /// The host, for the callback that reaches it; used from the dispatch thread only.
    private final class HostReference: @unchecked Sendable {
        weak var host: PluginHost?
    }

    /// A built-in plugin whose memory warning notes what the record says runs on this thread,
    /// dispatches an event to the other plugins, and notes it again.
    private struct Nesting: MemoryWarningPlugin {
        let descriptor: PluginDescriptor
        let reference: HostReference
        let log: CallLog

        func didReceiveMemoryWarning() {
            log.record("before: \(Self.running())")
            reference.host?.didBecomeActive()
            log.record("after: \(Self.running())")
        }

        /// The plugin and callback the calling thread's record names, or "nothing".
        static func running() -> String {
            var callback: UnsafePointer<CChar>?
            guard let label = pbf_running_here(&callback) else { return "nothing" }
            return "\(String(cString: label.pointee.who)) in \(callback.map { String(cString: $0) } ?? "?")"
        }
    }

    /// A built-in plugin that becomes active.
    private struct Active: AppStatePlugin {
        let descriptor: PluginDescriptor
        let log: CallLog

        func didBecomeActive() { log.record("active: \(Nesting.running())") }
    }

    @Test func theOuterCallIsNamedAgainAfterANestedEvent() throws {
        let log = CallLog()
        let reference = HostReference()
        let host = PluginHost()
        reference.host = host
        try host.register(Nesting(descriptor: PluginDescriptor(id: try PluginID(validating: "com.a.nesting")),
                                  reference: reference, log: log))
        try host.register(Active(descriptor: PluginDescriptor(id: try PluginID(validating: "com.b.active")), log: log))

        let report = host.didReceiveMemoryWarning()
        #expect(report.calls.map(\.plugin.rawValue) == ["com.a.nesting"])
        #expect(log.all == ["before: com.a.nesting in did_receive_memory_warning",
                            "active: com.b.active in did_become_active",
                            "after: com.a.nesting in did_receive_memory_warning"])
        #expect(Nesting.running() == "nothing", "after the event")
    }
}
