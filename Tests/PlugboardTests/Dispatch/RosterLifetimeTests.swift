import Testing
@testable import Plugboard

/// An event borrows its roster without a reference count, and its report refers to the roster's
/// interned members: a change of the plugins during an event must not free the roster the event
/// is still walking, and a report must read its calls after its host is gone.
@Suite struct RosterLifetimeTests {
    /// A memory-warning plugin whose first call registers `joining` and dispatches a memory warning
    /// of its own, from inside the event: the nested event rebuilds the rosters.
    private final class ChangingPlugin: MemoryWarningPlugin, @unchecked Sendable {
        let descriptor: PluginDescriptor
        let log: CallLog
        let joining: any ApplicationPlugin
        /// Set once the host exists; used from the dispatch thread only.
        weak var host: PluginHost?
        private var changed = false
        private(set) var nested: EventReport?

        init(_ id: String, priority: Int32, log: CallLog, joining: any ApplicationPlugin) throws {
            descriptor = PluginDescriptor(id: try PluginID(validating: id), priority: priority)
            self.log = log
            self.joining = joining
        }

        func didReceiveMemoryWarning() {
            log.record("\(descriptor.id) memory-warning")
            guard !changed, let host else { return }
            changed = true
            do { try host.register(joining) } catch { log.record("register failed: \(error)") }
            nested = host.didReceiveMemoryWarning()
        }
    }

    @Test func aCallbackThatChangesThePluginsLeavesItsEventsRosterWhole() throws {
        let log = CallLog()
        let changing = try ChangingPlugin("com.a.changing", priority: 9, log: log,
                                          joining: try ScriptedPlugin("com.c.joined", priority: 1, log: log))
        let host = PluginHost()
        defer { host.shutdown() }
        changing.host = host
        try host.register(changing)
        try host.register(try ScriptedPlugin("com.b.second", priority: 5, log: log))

        let outer = host.didReceiveMemoryWarning()
        #expect(outer.calls.map(\.plugin.rawValue) == ["com.a.changing", "com.b.second"])
        #expect(changing.nested?.calls.map(\.plugin.rawValue) == ["com.a.changing", "com.b.second", "com.c.joined"])
        #expect(log.all == ["com.a.changing memory-warning",
                            "com.a.changing memory-warning", "com.b.second memory-warning", "com.c.joined memory-warning",
                            "com.b.second memory-warning"])
        #expect(host.didReceiveMemoryWarning().calls.map(\.plugin.rawValue) == ["com.a.changing", "com.b.second", "com.c.joined"])
    }

    @Test func aRosterReplacedDuringAnEventIsKeptUntilTheLastEventEnds() throws {
        let log = CallLog()
        let registry = PluginRegistry()
        try registry.add(try ScriptedPlugin("com.a.first", log: log), source: .builtIn)
        registry.prepare()
        weak let borrowed = registry.memory
        registry.startCalls()
        registry.startCalls()
        try registry.add(try ScriptedPlugin("com.b.joined", log: log), source: .builtIn)
        registry.prepare()
        #expect(registry.memory.ids.map(\.rawValue) == ["com.a.first", "com.b.joined"])
        #expect(borrowed != nil)
        registry.endCalls()
        #expect(borrowed != nil, "an outer event still walks it")
        registry.endCalls()
        #expect(borrowed == nil)
    }

    /// Work that waits for the calls to end and that calls plugins itself (a restarted worker's
    /// restore) leaves its own waiting work to run after it, not inside it: a chain of them takes no stack.
    @Test func workThatWaitedRunsOneAfterAnotherNeverInside() {
        let registry = PluginRegistry()
        var order: [String] = []
        func chain(_ step: Int) {
            order.append("start \(step)")
            registry.startCalls()
            if step < 3 { registry.afterCalls { chain(step + 1) } }
            registry.endCalls()
            order.append("end \(step)")
        }
        registry.startCalls()
        registry.afterCalls { chain(1) }
        #expect(order.isEmpty, "waits while a call is under way")
        registry.endCalls()
        #expect(order == ["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"])
        registry.afterCalls { order.append("now") }
        #expect(order.last == "now", "runs at once when no call is under way")
    }

    @Test func aReportReadsItsCallsAfterItsHostIsGone() throws {
        let log = CallLog()
        var host: PluginHost? = PluginHost()
        try host?.register(try ScriptedPlugin("com.a.first", priority: 2, log: log))
        try host?.register(try ScriptedPlugin("com.b.second", priority: 1, log: log))
        let report = try #require(host?.willTerminate())
        host?.shutdown()
        host = nil
        #expect(report.calls.map(\.plugin.rawValue) == ["com.b.second", "com.a.first"])
        #expect(report.calls.map(\.answer) == [.returned, .returned])
    }

    @Test func equalMemberListsAreOneObject() throws {
        let log = CallLog()
        let registries = [PluginRegistry(), PluginRegistry()]
        for registry in registries {
            try registry.add(try ScriptedPlugin("com.a.same", log: log), source: .builtIn)
            registry.prepare()
        }
        #expect(registries[0].memory.members === registries[1].memory.members)
        #expect(registries[0].memory !== registries[1].memory)
        #expect(registries[0].savedState.members === PluginRegistry().memory.members, "both empty")
        #expect(registries[0].memory.members !== PluginRegistry().memory.members)
    }
}
