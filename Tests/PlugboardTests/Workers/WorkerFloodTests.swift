import Foundation
import Glibc
import Synchronization
import Testing
@testable import Plugboard

/// A worker that sends the host more than it can handle, while a call waits for its answer, still
/// ends with the call's timeout: the flood does not keep the waiting thread from its deadline.
@Suite struct WorkerFloodTests {
    /// The plugin's `open_url` writes its own valid log frames on the channel, 64 KiB at a time, and
    /// never returns; the host's log handler takes a millisecond a line, as one writing to a slow disk
    /// might; the call timeout is 1 s.
    @Test func aFloodOfFramesDoesNotHoldACallPastItsTimeout() throws {
        let directory = try TemporaryDirectory("plugboard-worker-flood")
        defer { directory.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: directory.path, ["FLOOD_FRAMES_AT=AT_OPEN_URL"])
        final class Count: Sendable { let lines = Atomic(0) }
        let floods = Count()
        let host = PluginHost(callTimeout: .seconds(1), isolation: .workers(worker: TestPaths.worker)) { record in
            guard record.message == "flood" else { return }
            floods.lines.add(1, ordering: .relaxed)
            usleep(1000)
        }
        defer { host.shutdown() }
        let load = host.loadLibrary(at: library)
        try #require(load.status == .loaded, "\(load.failure.map(\.description) ?? "")")
        let report = host.open(url: "myapp://flood")
        #expect(report.failures.map(\.plugin.rawValue) == ["com.example.hostile"], "\(report.failures.map(\.message))")
        #expect(report.failures.first?.message.contains("1 s") == true, "\(report.failures.map(\.message))")
        #expect(floods.lines.load(ordering: .relaxed) > 0, "the flood never reached the host")
    }
}
