import Foundation
import Synchronization
import Testing
@testable import Plugboard

/// What the host's end of a worker holds: the completions it hands plugins for remote
/// notifications (held while the answer is awaited, forgotten once it is given; an answer after
/// that is still named), and its socket (closed once the worker ended).
@Suite struct WorkerConnectionTests {
    /// What a worker prints up to its end has reached the output handler when the host's shutdown
    /// returns: the lines its `deinit` prints (through stdio and straight to fd 1) too.
    @Test func aWorkersLastPrintedLinesArriveBeforeShutdownReturns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let printer = try PluginCompiler.hostile("printer.so", in: directory.path, ["PRINT_AT=AT_DEINIT"])
        for _ in 0..<5 {
            let lines = Mutex<[String]>([])
            let host = PluginHost(isolation: .workers(worker: TestPaths.worker), logHandler: { _ in }) { line in
                lines.withLock { $0.append(line.text) }
            }
            try #require(host.loadLibrary(at: printer).status == .loaded)
            host.shutdown()
            let printed = lines.withLock { $0 }
            #expect(printed.contains { $0.hasPrefix("garbage from stdio") } && printed.contains { $0.hasPrefix("raw garbage on fd 1") },
                    "\(printed)")
        }
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
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker)) { record in
            guard record.level == .warning, record.plugin == "com.example.late" else { return }
            warnings.withLock { $0.append(record.message) }
        }
        defer { host.shutdown() }
        for library in [quick, late] { try #require(host.loadLibrary(at: library).status == .loaded) }
        for _ in 0..<3 {
            let report = host.didReceiveRemoteNotification(userInfo: "{}", deadline: .milliseconds(100))
            #expect(report.calls.count == 2, "\(report)")
        }
        let connections = [quick, late].flatMap { host.loader.loaded.workers(loadedFrom: $0) }
        #expect(connections.count == 2)
        #expect(connections.map(\.expectedCompletions) == [0, 0], "each aggregation finished, so no completion is held")

        let waited = ContinuousClock.now
        while warnings.withLock({ $0.count }) < 3, ContinuousClock.now - waited < .seconds(20) { usleep(10_000) }
        let late3 = Array(repeating: "answered the remote notification with new-data after the host's answer was given"
                          + " (deadline passed or already answered); ignored", count: 3)
        #expect(warnings.withLock { $0 } == late3)
    }

    /// A worker that crashed: its connection stays (the host reports how it ended) but holds no socket.
    @Test func aDeadWorkersChannelIsClosedAndALiveOnesIsNot() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let crashing = try PluginCompiler.hostile("crashing.so", in: directory.path,
                                                  ["SEGV_AT=AT_OPEN_URL", #"HOSTILE_ID="com.example.crashing""#, "HOSTILE_PRIORITY=10"])
        let living = try PluginCompiler.hostile("living.so", in: directory.path, [#"HOSTILE_ID="com.example.living""#])
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker))
        defer { host.shutdown() }
        for library in [crashing, living] { try #require(host.loadLibrary(at: library).status == .loaded) }
        let report = host.open(url: "myapp://x")
        #expect(report.failures.map(\.plugin.rawValue) == ["com.example.crashing"], "\(report)")
        let dead = try #require(host.loader.loaded.workers(loadedFrom: crashing).first)
        let alive = try #require(host.loader.loaded.workers(loadedFrom: living).first)
        let waited = ContinuousClock.now
        while !dead.channel.isClosed, ContinuousClock.now - waited < .seconds(20) { usleep(10_000) }
        #expect(dead.channel.isClosed, "the reader closes the channel once the worker ended")
        #expect(!alive.channel.isClosed)
        #expect(host.open(url: "myapp://y").calls.map(\.plugin.rawValue) == ["com.example.living"])
    }
}
