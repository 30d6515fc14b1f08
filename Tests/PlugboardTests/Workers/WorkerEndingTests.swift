import Foundation
import Glibc
import Testing
@testable import Plugboard

/// How a library's worker ended (``PluginHost/workerEnding(of:)``) is that of its last load: a crash
/// of an earlier load of the path does not stay with a later one that failed otherwise.
@Suite struct WorkerEndingTests {
    @Test func aLoadThatFailsWithoutACrashForgetsAnEarlierCrash() throws {
        let directory = try TemporaryDirectory("plugboard-worker-ending")
        defer { directory.remove() }
        let path = directory.file("libhostile.so")
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker)) { _ in }
        defer { host.shutdown() }
        try PluginCompiler.hostile("libhostile.so", in: directory.path, ["SEGV_AT=AT_INIT"])
        #expect(host.loadLibrary(at: path).status == .failed)
        #expect(host.workerEnding(of: path) == .crashed(signal: SIGSEGV))
        // Another file at the path (built aside, then renamed over it), whose init returns false.
        try PluginCompiler.hostile("next.so", in: directory.path, ["FAIL_AT=AT_INIT"])
        #expect(rename(directory.file("next.so"), path) == 0)
        let second = host.loadLibrary(at: path)
        #expect(second.status == .failed && second.failure?.stage == .`init`, "\(second.failure.map(\.description) ?? "")")
        #expect(host.workerEnding(of: path) == nil)
    }
}
