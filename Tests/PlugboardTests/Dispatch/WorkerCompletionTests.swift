import Foundation
import Synchronization
import Testing
@testable import Plugboard

/// The completions the host hands plugins in workers for remote notifications: held while
/// the answer is awaited, forgotten once it is given, and an answer after that is still named.
@Suite struct WorkerCompletionTests {
    private static var worker: String {
        URL(fileURLWithPath: TestPaths.plugboard).deletingLastPathComponent().appendingPathComponent("plugboard-worker").path
    }

    /// com.example.late answers 2 s after each callback, long past the 100 ms deadline.
    @Test func completionsAreForgottenOnceTheAnswerIsGivenAndALateAnswerIsStillNamed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let quick = try PluginCompiler.hostile("quick.so", in: directory.path,
                                               ["COMPLETE_FROM_THREAD_MS=0", #"HOSTILE_ID="com.example.quick""#])
        let late = try PluginCompiler.hostile("late.so", in: directory.path,
                                              ["COMPLETE_FROM_THREAD_MS=2000", #"HOSTILE_ID="com.example.late""#])
        let warnings = Mutex<[String]>([])
        let host = PluginHost(isolation: .workers(worker: Self.worker)) { record in
            guard record.level == .warning, record.plugin == "com.example.late" else { return }
            warnings.withLock { $0.append(record.message) }
        }
        defer { host.shutdown() }
        for library in [quick, late] { try #require(host.loadLibrary(at: library).status == .loaded) }
        for _ in 0..<3 {
            let report = host.didReceiveRemoteNotification(userInfo: "{}", deadline: .milliseconds(100))
            #expect(report.calls.count == 2, "\(report)")
        }
        let connections = [quick, late].flatMap { host.loaded.workers(loadedFrom: $0) }
        #expect(connections.count == 2)
        #expect(connections.map(\.expectedCompletions) == [0, 0], "each aggregation finished, so no completion is held")

        let waited = ContinuousClock.now
        while warnings.withLock({ $0.count }) < 3, ContinuousClock.now - waited < .seconds(20) { usleep(10_000) }
        let late3 = Array(repeating: "answered the remote notification with new-data after the host's answer was given"
                          + " (deadline passed or already answered); ignored", count: 3)
        #expect(warnings.withLock { $0 } == late3)
    }
}
