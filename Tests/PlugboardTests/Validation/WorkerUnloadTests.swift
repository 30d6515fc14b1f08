import Foundation
import Synchronization
import Testing
@testable import Plugboard

/// The worker harness's unload in a real worker (the worker protocol's `unload`): the library's
/// `deinit` runs, the worker stays, and a later load runs `init` again in the same process, with
/// plugin numbers from 0 again.
@Suite struct WorkerUnloadTests {
    @Test func aLibraryUnloadedInItsWorkerLoadsAgainInTheSameProcess() throws {
        let work = try Workspace("worker-unload")
        defer { work.remove() }
        let markers = work.root.file("markers")
        try FileManager.default.createDirectory(atPath: markers, withIntermediateDirectories: true)
        let marker = markers + "/dlopens.txt"
        let library = try PluginCompiler.hostile("again.so", in: work.plugins, ["LOAD_MARKER=\"\(marker)\""])
        let logged = Mutex<[String]>([])
        var grant = SandboxGrant()
        grant.write = [markers]
        let harness = WorkerHarness(library: library, worker: TestPaths.worker, callTimeout: .seconds(30), grant: grant,
                                    logHandler: { record in logged.withLock { $0.append(record.message) } })
        let host = harness.host
        #expect(harness.report.status == .loaded)

        #expect(try harness.unload(linger: .zero).get() == .zero)
        #expect(host.plugins.isEmpty)
        let again = harness.loadAgain()
        #expect(again.status == .loaded, "\(again)")
        // The plugin registered again is plugin 0 of the worker, and answers.
        #expect(host.open(url: "a://x").decidedBy.map(\.rawValue) == ["com.example.hostile"])
        #expect(logged.withLock { $0 } == ["init", "deinit", "init", "open-url"])
        // The library's constructor ran once: one dlopen, so one process, and two inits.
        #expect(try String(contentsOfFile: marker, encoding: .utf8).split(separator: "\n").count == 1)
    }

    @Test func theCensusCountsCallsFromPluginThreadsAndAfterDeinit() throws {
        let work = try Workspace("worker-census")
        defer { work.remove() }
        let joined = try PluginCompiler.hostile("joined.so", in: work.plugins, ["THREAD_LOGS_AT=AT_INIT"])
        let stray = try PluginCompiler.hostile("stray.so", in: work.plugins, ["STRAY_THREAD_AT=AT_INIT", "HOSTILE_ID=\"a.stray\""])
        let withJoined = WorkerHarness(library: joined, worker: TestPaths.worker, callTimeout: .seconds(30))
        let withStray = WorkerHarness(library: stray, worker: TestPaths.worker, callTimeout: .seconds(30))
        #expect(withJoined.report.status == .loaded)
        #expect(withStray.report.status == .loaded)

        let fromJoined = try withJoined.unload(linger: .zero).get()
        #expect(fromJoined.otherThreads == 1 && fromJoined.otherThreadCalls >= 1 && fromJoined.callsAfterDeinit == 0,
                "\(fromJoined)")
        // The stray thread logs every 10 ms: the worker's half second after deinit sees it call.
        let fromStray = try withStray.unload(linger: .milliseconds(500)).get()
        #expect(fromStray.otherThreads == 1 && fromStray.callsAfterDeinit >= 1, "\(fromStray)")
    }
}
