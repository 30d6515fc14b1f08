import Synchronization
import Testing
@testable import Plugboard

/// The remote-notification policy: call all, strongest answer, completion exactly once.
@Suite struct RemoteNotificationTests {
    private func host(_ plugins: [ScriptedPlugin], log: @escaping PluginHost.LogHandler = { _ in }) throws -> PluginHost {
        let host = PluginHost(logHandler: log)
        for plugin in plugins { try host.register(plugin) }
        return host
    }

    private func plugin(_ id: String, _ fetch: ScriptedPlugin.FetchBehaviour, log: CallLog) throws -> ScriptedPlugin {
        var plugin = try ScriptedPlugin(id, log: log)
        plugin.fetch = fetch
        return plugin
    }

    @Test(arguments: [
        ([FetchResult.failed, .noData, .newData], FetchResult.newData),
        ([.failed, .noData], .noData),
        ([.failed, .failed], .failed),
        ([.noData], .noData),
    ])
    func theStrongestAnswerWins(_ answers: [FetchResult], _ expected: FetchResult) throws {
        let log = CallLog()
        let plugins = try answers.enumerated().map { try plugin("com.p.n\($0.offset)", .now($0.element), log: log) }
        let report = try host(plugins).didReceiveRemoteNotification(userInfo: "{}")
        #expect(report.answer == .fetch(expected))
        #expect(report.calls.count == answers.count)
        #expect(report.decidedBy.count == answers.filter { $0 == expected }.count)
    }

    @Test func aPluginThatNeverAnswersTimesOutAndTheOthersStillCount() throws {
        let log = CallLog()
        let host = try host([try plugin("com.p.silent", .never, log: log), try plugin("com.p.fast", .now(.newData), log: log)])
        let report = host.didReceiveRemoteNotification(userInfo: "{}", deadline: .milliseconds(100))
        #expect(report.answer == .fetch(.newData))
        let answers = Dictionary(uniqueKeysWithValues: report.calls.map { ($0.plugin.rawValue, $0.answer) })
        #expect(answers == ["com.p.silent": .timedOut, "com.p.fast": .fetch(.newData)])
        #expect(report.nanoseconds >= 100_000_000)
    }

    @Test func theCompletionFiresExactlyOnceEvenWhenAPluginAnswersTwice() async throws {
        let log = CallLog()
        let warnings = CallLog()
        let host = try host([try plugin("com.p.twice", .twice(.noData, .newData), log: log),
                             try plugin("com.p.late", .later(.failed, milliseconds: 30), log: log)]) { record in
            warnings.record("\(record.plugin ?? "-") \(record.message)")
        }
        let deliveries = Mutex<[EventReport]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            host.didReceiveRemoteNotification(userInfo: "{}", deadline: .seconds(5)) { report in
                deliveries.withLock { $0.append(report) }
                done.resume()
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        let reports = deliveries.withLock { $0 }
        #expect(reports.count == 1)
        #expect(reports.first?.answer == .fetch(.noData))
        #expect(reports.first?.notes.count == 1)
        #expect(reports.first?.notes.first?.contains("com.p.twice answered the remote notification twice") == true)
        #expect(warnings.all.count == 1)
    }

    /// A plugin that answers a thousand times, then answers wrongly a thousand times (a worker can send
    /// millions of answers), is reported once: one note, one warning.
    @Test func aPluginThatAnswersOverAndOverIsReportedOnce() {
        let warnings = Mutex<[String]>([])
        let aggregation = FetchAggregation(ids: [PluginID(unchecked: "com.p.loop"), PluginID(unchecked: "com.p.other")],
                                           onFinish: { _ in }, warn: { id, problem in warnings.withLock { $0.append("\(id) \(problem)") } })
        let loop = aggregation.completion(for: 0)
        for _ in 0..<1000 { loop(.newData) }
        for _ in 0..<1000 { loop.reject("answered with 7, which is not a PB_FETCH_* value; ignored") }
        aggregation.completion(for: 1)(.noData)
        let report = aggregation.waitForReport()
        #expect(report.answer == .fetch(.newData))
        #expect(report.notes.count == 1 && report.notes.first?.hasPrefix("com.p.loop answered the remote notification twice") == true,
                "\(report.notes.prefix(3))")
        #expect(warnings.withLock { $0.count } == 1)
    }

    @Test func anAnswerAfterTheDeadlineIsIgnoredAndReported() async throws {
        let log = CallLog()
        let warnings = CallLog()
        let host = try host([try plugin("com.p.slow", .later(.newData, milliseconds: 150), log: log)]) { record in
            warnings.record(record.message)
        }
        let report = host.didReceiveRemoteNotification(userInfo: "{}", deadline: .milliseconds(20))
        #expect(report.answer == .fetch(.noData))
        #expect(report.calls.first?.answer == .timedOut)
        try await Task.sleep(for: .milliseconds(400))
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("after the host's answer was given") == true)
    }

    @Test func noPluginsAnswersNoDataAtOnce() {
        let delivered = Mutex(0)
        PluginHost().didReceiveRemoteNotification(userInfo: "{}") { report in
            #expect(report.answer == .fetch(.noData))
            delivered.withLock { $0 += 1 }
        }
        #expect(delivered.withLock { $0 } == 1)
    }
}
