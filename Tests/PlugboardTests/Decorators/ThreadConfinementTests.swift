import Foundation
import Glibc
import Synchronization
import Testing
@testable import Plugboard

/// ``PluginDecorator/threadConfinement`` through the embedding API: what plugin threads send
/// (log lines, a notification's completion, the deadline) reaches the application on the
/// thread that dispatches, in process and from a worker alike.
@Suite struct ThreadConfinementTests {
    /// One log record and whether it arrived on the dispatch thread.
    private struct Arrival: Sendable {
        let message: String
        let onDispatchThread: Bool
    }

    /// The plugin's messages as they arrive.
    private final class Arrivals: Sendable {
        let all = Mutex<[Arrival]>([])
        var seen: [Arrival] { all.withLock { $0 } }
    }

    /// A host with confinement, its plugins `in process` or in a `worker`, logging to `log`.
    private func host(_ placement: String, log: @escaping PluginHost.LogHandler) -> PluginHost {
        PluginHost(isolation: placement == "worker" ? .workers(worker: TestPaths.worker) : .inProcess,
                   decorators: [.threadConfinement], logHandler: log)
    }

    /// A host with confinement whose log handler notes, for each plugin message, whether it ran on this thread.
    private func host(_ placement: String, _ arrivals: Arrivals) -> PluginHost {
        let dispatchThread = UInt(pthread_self())
        return host(placement) { record in
            guard record.plugin == "com.example.hostile" else { return }
            arrivals.all.withLock { $0.append(Arrival(message: record.message, onDispatchThread: UInt(pthread_self()) == dispatchThread)) }
        }
    }

    /// What a worker sent is queued whichever host thread reads it, the dispatch thread included,
    /// and runs at the next drain in the order queued: a worker's lines keep the order it sent them in.
    @Test func queuedWorkRunsAtTheNextDrainInOrderWhateverTheThread() {
        let confinement = DispatchThreadConfinement(dropNotes: { _ in })
        confinement.adopt()
        let order = Mutex<[String]>([])
        let queued = DispatchSemaphore(value: 0)
        Thread {
            confinement.queue { order.withLock { $0.append("first, read by another thread") } }
            queued.signal()
        }.start()
        queued.wait()
        confinement.queue { order.withLock { $0.append("second, read by the dispatch thread") } }
        #expect(order.withLock { $0 }.isEmpty)
        confinement.drain()
        #expect(order.withLock { $0 } == ["first, read by another thread", "second, read by the dispatch thread"])
    }

    /// Each source has its own allowance of waiting lines, counted in bytes too: a library that logs
    /// long lines loses only its own past 4 MiB, another library's lines all arrive, and the one note
    /// names the library that lost lines.
    @Test func eachSourceHasItsOwnAllowanceInLinesAndBytes() {
        let notes = Mutex<[String]>([])
        let confinement = DispatchThreadConfinement(dropNotes: { record in notes.withLock { $0.append(record.message) } })
        confinement.adopt()
        let delivered = Mutex<[String]>([])
        let log: PluginHost.LogHandler = { record in delivered.withLock { $0.append(record.source) } }
        let mebibyte = String(repeating: "x", count: 1 << 20)
        for _ in 0..<5 { confinement.log(PluginLogRecord(source: "/loud.so", plugin: nil, level: .info, message: mebibyte), to: log, ordered: true) }
        for _ in 0..<3 { confinement.log(PluginLogRecord(source: "/quiet.so", plugin: nil, level: .info, message: "hello"), to: log, ordered: true) }
        confinement.drain()
        #expect(delivered.withLock { $0 } == Array(repeating: "/loud.so", count: 4) + Array(repeating: "/quiet.so", count: 3))
        #expect(notes.withLock { $0 } == ["1 log lines of /loud.so dropped: more than 10000 lines or 4 MiB waited for the dispatch "
                                          + "thread (thread confinement)"])
        // The allowance is for what waits: once drained, the library may log again.
        confinement.log(PluginLogRecord(source: "/loud.so", plugin: nil, level: .info, message: mebibyte), to: log, ordered: true)
        confinement.drain()
        #expect(delivered.withLock { $0 }.count == 8)
    }

    @Test(arguments: ["in process", "worker"])
    func threadLogsAndACompletionArriveOnTheDispatchThread(placement: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let library = try PluginCompiler.hostile("hostile.so", in: directory.path,
                                                 ["CONFINED_LOG_AT=AT_WILL_FINISH", "COMPLETE_FROM_THREAD_MS=50"])
        let arrivals = Arrivals()
        let host = host(placement, arrivals)
        defer { host.shutdown() }
        try #require(host.loadLibrary(at: library).status == .loaded)
        host.willFinishLaunching()
        let report = host.didReceiveRemoteNotification(userInfo: "{}", deadline: .seconds(20))
        #expect(report.answer == .fetch(.newData), "\(report)")
        let seen = arrivals.seen
        for message in ["from a plugin thread", "after the thread joined", "completing from a thread"] {
            #expect(seen.contains { $0.message == message }, "\(message) missing: \(seen)")
        }
        #expect(seen.allSatisfy { $0.onDispatchThread }, "\(seen)")
    }

    /// A worker's log line and then its answer, sent from the callback: the application sees them in
    /// that order, whichever host thread reads them (the dispatch thread, waiting for the call's
    /// reply, reads them too).
    @Test(arguments: ["in process", "worker"])
    func aLogLineBeforeAnAnswerArrivesBeforeIt(placement: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let library = try PluginCompiler.hostile("hostile.so", in: directory.path,
                                                 ["COMPLETE_AT=AT_TERMINATE", "LOG_BEFORE_COMPLETING"])
        let order = Mutex<[String]>([])
        let host = host(placement) { record in
            if record.message == "answering at once" { order.withLock { $0.append("log line") } }
        }
        defer { host.shutdown() }
        try #require(host.loadLibrary(at: library).status == .loaded)
        for round in 0..<20 {
            order.withLock { $0 = [] }
            host.didReceiveRemoteNotification(userInfo: "{}", deadline: .seconds(20)) { _ in
                order.withLock { $0.append("answer") }
            }
            let waited = ContinuousClock.now
            while order.withLock({ $0.count }) < 2, ContinuousClock.now - waited < .seconds(20) {
                usleep(1_000)
                host.deliverConfined()
            }
            #expect(order.withLock { $0 } == ["log line", "answer"], "round \(round)")
        }
    }

    /// A plugin thread that logs more lines than may wait for the dispatch thread during one call: the
    /// first ones arrive, in order; the rest are dropped and counted in one warning naming the library.
    @Test(arguments: ["in process", "worker"])
    func linesPastTheWaitingLimitAreDroppedAndCounted(placement: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let library = try PluginCompiler.hostile("hostile.so", in: directory.path, ["CONFINED_FLOOD_AT=AT_WILL_FINISH"])
        let lines = Mutex<[String]>([])
        let notes = Mutex<[PluginLogRecord]>([])
        let host = host(placement) { record in
            if record.plugin == "com.example.hostile" { lines.withLock { $0.append(record.message) } }
            if record.source == HostIdentity.name, record.message.contains("dropped") { notes.withLock { $0.append(record) } }
        }
        defer { host.shutdown() }
        try #require(host.loadLibrary(at: library).status == .loaded)
        host.willFinishLaunching()
        let limit = DispatchThreadConfinement.waitingLineLimit
        let floods = lines.withLock { $0 }.filter { $0.hasPrefix("flood ") }
        // The first lines, in order, as many as the limit leaves room for (a worker's other lines
        // of the call, if any, wait too).
        #expect(floods.count > limit - 10 && floods.count <= limit, "\(floods.count) lines")
        #expect(floods.elementsEqual((1...max(1, floods.count)).lazy.map { "flood \($0)" }), "not the first lines in order")
        // A worker's lines are all queued, its last one too; in process, that one is logged on the
        // dispatch thread itself, at once.
        let dropped = 25_000 + (placement == "worker" ? 1 : 0) - floods.count
        let note = try #require(notes.withLock { $0 }.first)
        #expect(notes.withLock { $0 }.count == 1)
        #expect(note.level == .warning)
        #expect(note.message == "\(dropped) log lines of \(library) dropped: more than \(limit) lines or 4 MiB waited for "
                    + "the dispatch thread (thread confinement)", "\(note.message)")
        #expect(lines.withLock { $0 }.contains("after the flood") == (placement == "in process"))
    }

    /// An answer after the deadline: the deadline, then the late answer's warning, both on the dispatch thread.
    @Test(arguments: ["in process", "worker"])
    func aLateCompletionFromAThreadIsReportedOnTheDispatchThread(placement: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let library = try PluginCompiler.hostile("hostile.so", in: directory.path, ["COMPLETE_FROM_THREAD_MS=300"])
        let arrivals = Arrivals()
        let host = host(placement, arrivals)
        defer { host.shutdown() }
        try #require(host.loadLibrary(at: library).status == .loaded)
        let report = host.didReceiveRemoteNotification(userInfo: "{}", deadline: .milliseconds(20))
        #expect(report.calls.map(\.answer) == [.timedOut], "\(report)")
        // The late answer comes later; it is handed over when the application asks (or at the next event).
        let waited = ContinuousClock.now
        while !arrivals.seen.contains(where: { $0.message.contains("after the host's answer was given") }),
              ContinuousClock.now - waited < .seconds(20) {
            usleep(10_000)
            host.deliverConfined()
        }
        let seen = arrivals.seen
        #expect(seen.contains { $0.message == "completing from a thread" }, "\(seen)")
        #expect(seen.contains { $0.message.contains("after the host's answer was given") }, "\(seen)")
        #expect(seen.allSatisfy { $0.onDispatchThread }, "\(seen)")
    }
}
