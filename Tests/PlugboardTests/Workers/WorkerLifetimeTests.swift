import Foundation
import Testing
@testable import Plugboard

/// A worker lives as long as its host, not as long as the thread that started it: the kernel kills
/// a worker when that thread ends (`PR_SET_PDEATHSIG` follows the parent thread), and workers are
/// started from several threads at once.
@Suite struct WorkerLifetimeTests {
    /// Two libraries started at once (from Dispatch's pool threads before, which end after 5 s idle),
    /// then 7 s without an event: both workers still answer.
    @Test func workersStartedTogetherOutliveTheThreadsThatStartedThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for name in ["first", "second", "third"] {
            try PluginCompiler.fixture("lib\(name).so", in: directory, ["FIX_ID=\"com.example.\(name)\"", "FIX_BROADCASTS"])
        }
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker)) { _ in }
        defer { host.shutdown() }
        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [directory.path]))
        try #require(reports.count == 3 && reports.allSatisfy { $0.status == .loaded }, "\(reports)")
        #expect(host.didReceiveMemoryWarning().failures.isEmpty)
        Thread.sleep(forTimeInterval: 7)
        let report = host.didReceiveMemoryWarning()
        #expect(report.failures.isEmpty, "\(report.failures.map(\.message))")
        #expect(report.calls.count == 3 && report.calls.allSatisfy { $0.answer == .returned }, "\(report.calls)")
    }
}
