import Foundation
import Glibc
import PlugboardWorkerProtocol
import Testing
@testable import Plugboard

/// A worker lives as long as its host: not as long as the thread that started it (the kernel kills a
/// worker when that thread ends: `PR_SET_PDEATHSIG` follows the parent thread, and workers are
/// started from several threads at once), and not longer, whatever its plugin does.
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

    /// A worker that dies while it is asked nothing (a plugin's own thread crashed it between two
    /// events) is reported so at the next call, naming its library, not as if that callback had crashed it.
    @Test func aCrashBetweenCallsIsNamedSo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: directory.path, ["LATE_SEGV_AT=AT_WILL_FINISH"])
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker)) { _ in }
        defer { host.shutdown() }
        #expect(host.loadLibrary(at: library).status == .loaded)
        #expect(host.willFinishLaunching().failures.isEmpty)
        // The crash comes 300 ms after will-finish-launching.
        _ = try host.workerEndedByItself(of: library)
        let report = host.open(url: "myapp://x")
        #expect(report.failures.map(\.message) == ["\(library) crashed with SIGSEGV between calls"], "\(report.failures)")
    }

    /// A worker that died between calls never received the event that finds it so: restarted, its
    /// plugin gets that event in the new worker and answers it, a remote notification's completion
    /// included. The crash is still reported, once, between calls.
    @Test(arguments: [false, true])
    func anEventThatFindsItsWorkerEndedBetweenCallsReachesTheRestartedWorker(remoteNotification: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: directory.path, ["LATE_SEGV_AT=AT_WILL_FINISH", "COMPLETE_AT=0"])
        let logs = LogCollector()
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker), restarts: 1) { record in
            logs.append(source: record.source, plugin: record.plugin, level: record.level.rawValue, message: record.message)
        }
        defer { host.shutdown() }
        #expect(host.loadLibrary(at: library).status == .loaded)
        #expect(host.willFinishLaunching().failures.isEmpty)
        let worker = try host.workerEndedByItself(of: library)
        let report = remoteNotification ? host.didReceiveRemoteNotification(userInfo: "{}") : host.open(url: "myapp://x")
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.answer == (remoteNotification ? .fetch(.newData) : .bool(true)))
        #expect(host.failures.map(\.message) == ["\(library) crashed with SIGSEGV between calls"])
        let said = logs.messages(plugin: "com.example.hostile")
        #expect(said.filter { $0 == (remoteNotification ? "remote-notification" : "open-url") }.count == 1, "\(said)")
        #expect(host.loader.loaded.workers(loadedFrom: library).contains { $0 !== worker && $0.ending == nil }, "a new worker serves")
    }

    /// A worker that fails once the application ended (in will-terminate) is not started again,
    /// whatever restarts its library has left: its plugins would run after the end for nothing.
    @Test func aWorkerThatFailsInWillTerminateIsNotRestarted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: directory.path, ["SEGV_AT=AT_TERMINATE"])
        let logs = LogCollector()
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker), restarts: 3) { record in
            logs.append(source: record.source, plugin: record.plugin, level: record.level.rawValue, message: record.message)
        }
        defer { host.shutdown() }
        #expect(host.loadLibrary(at: library).status == .loaded)
        let report = host.willTerminate()
        #expect(report.failures.map(\.message) == ["com.example.hostile crashed with SIGSEGV in will_terminate (\(library))"])
        #expect(logs.messages(plugin: nil).filter { $0.contains("restart") }.isEmpty, "\(logs.messages(plugin: nil))")
        #expect(host.plugins.isEmpty)
    }

    /// A log message longer than one frame to the host carries comes cut, and says so, where it was lost.
    @Test func aLogMessageLongerThanAFrameComesCut() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: directory.path, ["HUGE_LOG_AT=AT_OPEN_URL"])
        let logs = LogCollector()
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker)) { record in
            logs.append(source: record.source, plugin: record.plugin, level: record.level.rawValue, message: record.message)
        }
        defer { host.shutdown() }
        #expect(host.loadLibrary(at: library).status == .loaded)
        #expect(host.open(url: "myapp://x").failures.isEmpty)
        let huge = logs.messages(plugin: "com.example.hostile").filter { $0.hasPrefix("xxxx") }
        let cut = (70 << 20) - WorkerSession.longestLogMessage
        #expect(huge.count == 1)
        #expect(huge.first?.hasSuffix("x… (\(cut) more bytes cut: longer than one message to the host carries)") == true,
                "\(huge.first?.suffix(100) ?? "nothing")")
        #expect(huge.first.map { $0.utf8.count < WireFormat.maximumPayloadLength } == true)
    }

    /// A host killed with SIGKILL while its worker spins in a callback takes the worker with it, though
    /// the plugin tried to clear the worker's death signal first: the sandbox refuses that, and says so.
    @Test func aWorkerBusyInACallbackEndsWithAKilledHost() throws {
        let workspace = try Workspace("worker-outlive")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["OUTLIVE_HOST_AT=AT_INIT", "SPIN_AT=AT_OPEN_URL"])
        let process = try LiveProcess(try CLI.binary(), ["run", "--isolation", "process", "--call-timeout", "600",
                                                         "--plugin-dir", workspace.plugins, "--container", workspace.root.file("box"),
                                                         "--events", "-"])
        defer { process.stop() }
        try #require(process.waitForOutput(containing: "did-finish-launching → ", timeout: .seconds(60)),
                     "the launch never finished:\n\(process.output)")
        let worker = try #require(Self.workerID(in: process.output), "the plugin did not say its process id:\n\(process.output)")
        defer { if Self.isRunning(worker) { kill(worker, SIGKILL) } }
        #expect(process.output.contains("worker \(worker): death signal kept"), "\(process.output)")
        // The denial comes on a descriptor of its own, read by a thread of its own: it may be logged after the launch.
        #expect(process.waitForOutput(containing: "tried to stop dying with the host (prctl PR_SET_PDEATHSIG) in init",
                                      timeout: .seconds(10)), "\(process.output)")
        try process.send(#"{"event":"open-url","url":"myapp://x"}"# + "\n")
        usleep(300_000)
        #expect(Self.isRunning(worker), "the worker ended before its host")
        kill(process.pid, SIGKILL)
        let deadline = ContinuousClock.now + .seconds(10)
        while Self.isRunning(worker) && ContinuousClock.now < deadline { usleep(10_000) }
        #expect(!Self.isRunning(worker), "the worker outlived its host killed with SIGKILL")
    }

    /// The process id in the hostile plugin's "worker PID: death signal …" line.
    private static func workerID(in output: String) -> pid_t? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains(": death signal ") }),
              let start = line.range(of: "worker ")?.upperBound else { return nil }
        return pid_t(line[start...].prefix { $0.isNumber })
    }

    /// Whether `pid` is a process that has not ended (a zombie has).
    private static func isRunning(_ pid: pid_t) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let afterName = status.range(of: ") ", options: .backwards)?.upperBound else { return false }
        return status[afterName...].first != "Z"
    }
}
