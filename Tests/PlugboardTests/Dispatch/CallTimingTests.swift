import Testing
@testable import Plugboard

/// Both timing modes give the same answers and calls; only the per-call durations differ.
@Suite struct CallTimingTests {
    @Test(arguments: [CallTiming.perCall, .perEvent])
    func answersAndCallsDoNotDependOnTiming(_ timing: CallTiming) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try PluginCompiler.fixture("a.so", in: directory, [#"FIX_ID="com.t.veto""#, "FIX_PRIORITY=3", "FIX_LAUNCH=0", "FIX_OPEN_URL=0", "FIX_TERMINATE"])
        try PluginCompiler.fixture("b.so", in: directory, [#"FIX_ID="com.t.yes""#, "FIX_PRIORITY=1", "FIX_LAUNCH=1", "FIX_OPEN_URL=1", "FIX_TERMINATE"])
        let log = CallLog()
        let host = PluginHost(timing: timing)
        defer { host.shutdown() }
        try host.register(try ScriptedPlugin("com.t.swift", priority: 2, log: log))
        #expect(host.loadPlugins(from: PluginSearchPath(explicit: [directory.path])).map(\.status) == [.loaded, .loaded])

        let launch = host.willFinishLaunching()
        #expect(launch.answer == .bool(false))
        #expect(launch.decidedBy.map(\.rawValue) == ["com.t.veto"])
        #expect(launch.calls.map(\.plugin.rawValue) == ["com.t.veto", "com.t.swift", "com.t.yes"])
        #expect(launch.calls.map(\.answer) == [.bool(false), .bool(true), .bool(true)])
        let url = host.open(url: "myapp://x")
        #expect(url.calls.map(\.plugin.rawValue) == ["com.t.veto", "com.t.swift", "com.t.yes"])
        #expect(url.decidedBy.map(\.rawValue) == ["com.t.yes"])
        let terminate = host.willTerminate()
        #expect(terminate.calls.map(\.plugin.rawValue) == ["com.t.yes", "com.t.swift", "com.t.veto"])
        for report in [launch, url, terminate] {
            #expect(report.calls.allSatisfy { ($0.nanoseconds != nil) == (timing == .perCall) })
        }
        #expect(log.all == ["com.t.swift will-finish-launching", "com.t.swift open-url", "com.t.swift will-terminate"])
    }

    /// Timed per call, each call's duration is kept, and together they make the event's time; one
    /// call's is the event's.
    @Test(arguments: [1, 3])
    func perCallDurationsAddUpToTheEvent(plugins: Int) throws {
        let host = PluginHost(timing: .perCall)
        for index in 0..<plugins { try host.register(try ScriptedPlugin("com.t.p\(index)", log: CallLog())) }
        for report in [host.willFinishLaunching(), host.open(url: "myapp://x"), host.willTerminate()] {
            let durations = report.calls.compactMap(\.nanoseconds)
            #expect(durations.count == report.calls.count && !durations.isEmpty)
            #expect(durations.reduce(0, +) == report.nanoseconds)
        }
    }

    /// A report is four words, so that a dispatch returns it in registers: through memory, its
    /// fields were written and at once read back wider, which stalls (BENCHMARKS.md, "Dispatch").
    @Test func aReportIsFourWords() {
        #expect(MemoryLayout<EventReport>.size == 4 * MemoryLayout<UInt64>.size)
    }

    /// A report that gains the notifications delivered after its calls keeps what it had: the
    /// handler (derived from the calls when nothing else is kept), each call's answer and duration.
    @Test func aReportWithNotificationsKeepsItsCalls() throws {
        let host = PluginHost(timing: .perCall)
        try host.register(try ScriptedPlugin("com.t.first", priority: 2, log: CallLog()))
        var handler = try ScriptedPlugin("com.t.second", priority: 1, log: CallLog())
        handler.urlAnswer = true
        try host.register(handler)
        let plain = host.open(url: "myapp://x")
        #expect(plain.notifications.isEmpty && plain.decidedBy.map(\.rawValue) == ["com.t.second"])
        try host.post("com.t.note")
        let report = host.open(url: "myapp://x")
        #expect(report.notifications.unobserved.map(\.name) == ["com.t.note"])
        #expect(report.decidedBy.map(\.rawValue) == ["com.t.second"])
        #expect(report.calls.map(\.answer) == [.bool(false), .bool(true)])
        #expect(report.calls.compactMap(\.nanoseconds).reduce(0, +) == report.nanoseconds)
        #expect(report.accepted == true && report.event == .openURL)
    }
}

