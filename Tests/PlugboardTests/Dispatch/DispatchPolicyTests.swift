import Testing
@testable import Plugboard

/// Every policy of the dispatch table, with 0, 1 and many Swift plugins.
@Suite struct DispatchPolicyTests {
    private func host(_ plugins: [any ApplicationPlugin]) throws -> PluginHost {
        let host = PluginHost()
        for plugin in plugins { try host.register(plugin) }
        return host
    }

    private func ids(_ report: EventReport) -> [String] { report.calls.map(\.plugin.rawValue) }

    @Test func withNoPluginsEachPolicyGivesItsDefault() throws {
        let host = PluginHost()
        #expect(host.willFinishLaunching().answer == .bool(true))
        #expect(host.didFinishLaunching().answer == .bool(true))
        #expect(host.open(url: "myapp://x").answer == .bool(false))
        #expect(host.continueUserActivity(type: "a.b").answer == .bool(false))
        #expect(host.didReceiveRemoteNotification(userInfo: "{}").answer == .fetch(.noData))
        for report in [host.didReceiveMemoryWarning(), host.didBecomeActive(), host.willTerminate()] {
            #expect(report.answer == .none)
            #expect(report.calls.isEmpty)
        }
    }

    @Test func withOnePluginItsAnswerIsTheAnswer() throws {
        let log = CallLog()
        var plugin = try ScriptedPlugin("com.example.one", log: log)
        plugin.launchAnswer = false
        plugin.urlAnswer = true
        plugin.fetch = .now(.failed)
        let host = try host([plugin])
        #expect(host.willFinishLaunching().answer == .bool(false))
        #expect(host.open(url: "myapp://x").decidedBy.map(\.rawValue) == ["com.example.one"])
        #expect(host.didReceiveRemoteNotification(userInfo: "{}").answer == .fetch(.failed))
        #expect(log.all == ["com.example.one will-finish-launching", "com.example.one open-url",
                            "com.example.one remote-notification"])
    }

    @Test func aLaunchVetoDoesNotStopTheOtherPluginsFromBeingCalled() throws {
        let log = CallLog()
        var first = try ScriptedPlugin("com.example.first", priority: 10, log: log)
        first.launchAnswer = false
        let second = try ScriptedPlugin("com.example.second", priority: 5, log: log)
        var third = try ScriptedPlugin("com.example.third", priority: 1, log: log)
        third.launchAnswer = false
        let host = try host([third, second, first])

        let report = host.willFinishLaunching()
        #expect(report.answer == .bool(false))
        #expect(report.decidedBy.map(\.rawValue) == ["com.example.first", "com.example.third"])
        #expect(log.all == ["com.example.first will-finish-launching", "com.example.second will-finish-launching",
                            "com.example.third will-finish-launching"])
        #expect(report.calls.map(\.answer) == [.bool(false), .bool(true), .bool(false)])
    }

    @Test func orderIsPriorityThenIdAndTerminateIsReversed() throws {
        let log = CallLog()
        let plugins = try [("com.b", 0), ("com.a", 0), ("com.z", 7), ("com.c", -3), ("com.m", 7)].map {
            try ScriptedPlugin($0.0, priority: Int32($0.1), log: log)
        }
        let host = try host(plugins)
        let expected = ["com.m", "com.z", "com.a", "com.b", "com.c"]
        #expect(ids(host.didReceiveMemoryWarning()) == expected)
        #expect(ids(host.willFinishLaunching()) == expected)
        #expect(ids(host.willTerminate()) == expected.reversed())
        #expect(host.plugins.map(\.descriptor.id.rawValue) == expected)
    }

    @Test func firstTrueWinsStopsAtTheHandler() throws {
        let log = CallLog()
        let first = try ScriptedPlugin("com.example.first", priority: 3, log: log)
        var handler = try ScriptedPlugin("com.example.handler", priority: 2, log: log)
        handler.urlAnswer = true
        handler.activityAnswer = true
        var later = try ScriptedPlugin("com.example.later", priority: 1, log: log)
        later.urlAnswer = true
        let host = try host([later, handler, first])

        let url = host.open(url: "myapp://item/1")
        #expect(url.answer == .bool(true))
        #expect(url.decidedBy.map(\.rawValue) == ["com.example.handler"])
        #expect(ids(url) == ["com.example.first", "com.example.handler"])
        let activity = host.continueUserActivity(type: "com.example.view")
        #expect(activity.decidedBy.map(\.rawValue) == ["com.example.handler"])
        #expect(!log.all.contains("com.example.later open-url"))
    }

    @Test func nobodyHandlingAURLAnswersFalseAfterAskingEveryone() throws {
        let log = CallLog()
        let host = try host(try ["com.a.one", "com.a.two", "com.a.three"].map { try ScriptedPlugin($0, log: log) })
        let report = host.open(url: "https://elsewhere")
        #expect(report.answer == .bool(false))
        #expect(report.calls.count == 3)
        #expect(report.decidedBy.isEmpty)
    }

    @Test func pluginsOnlyReceiveTheirConcerns() throws {
        let log = CallLog()
        let urlOnly = URLOnlyPlugin(descriptor: PluginDescriptor(id: try PluginID(validating: "com.example.links")), log: log)
        let host = try host([urlOnly])
        #expect(host.plugins.first?.concerns == [.openURL])
        host.willFinishLaunching()
        host.didReceiveMemoryWarning()
        host.willTerminate()
        #expect(host.open(url: "myapp://a").answer == .bool(true))
        #expect(log.all == ["com.example.links open-url myapp://a"])
    }

    @Test func everyBroadcastReachesEveryPluginInOrder() throws {
        let log = CallLog()
        let host = try host([try ScriptedPlugin("com.x.low", priority: 0, log: log),
                             try ScriptedPlugin("com.x.high", priority: 9, log: log)])
        let events: [(String, () -> EventReport)] = [
            ("register-token", { host.didRegisterForRemoteNotifications(deviceToken: [1, 2]) }),
            ("register-failed", { host.didFailToRegisterForRemoteNotifications(error: "offline") }),
            ("memory-warning", host.didReceiveMemoryWarning),
            ("protected-data-will-become-unavailable", host.protectedDataWillBecomeUnavailable),
            ("protected-data-did-become-available", host.protectedDataDidBecomeAvailable),
            ("did-become-active", host.didBecomeActive),
            ("will-resign-active", host.willResignActive),
            ("did-enter-background", host.didEnterBackground),
            ("will-enter-foreground", host.willEnterForeground),
        ]
        for (name, send) in events {
            let report = send()
            #expect(report.event.name == name)
            #expect(report.calls.map(\.answer) == [.returned, .returned])
        }
        #expect(log.all == events.flatMap { ["com.x.high \($0.0)", "com.x.low \($0.0)"] })
    }

    @Test func aDuplicateIdIsRefusedNamingBothSources() throws {
        let log = CallLog()
        let host = try host([try ScriptedPlugin("com.example.same", log: log)])
        #expect {
            try host.register(try ScriptedPlugin("com.example.same", log: log))
        } throws: { error in
            (error as? LoadFailure)?.message == "duplicate plugin id 'com.example.same' from built-in: already registered by built-in"
        }
        #expect(host.plugins.count == 1)
    }
}
