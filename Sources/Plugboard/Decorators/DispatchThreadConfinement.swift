import Dispatch
import Glibc
import Synchronization

/// ``PluginDecorator/threadConfinement``: what plugin threads send the host (log
/// lines, notification completions; the bus's posts always are, by the bus itself) is queued and run on
/// the dispatch thread, the thread that delivers events, like an application's
/// main-queue hop. Thread-safe; ``drain()`` and ``wait(until:)`` run on the dispatch thread.
final class DispatchThreadConfinement: Sendable {
    /// The most log lines of one source (a library, or the host) kept waiting for the dispatch
    /// thread at once, and the most bytes of text: a plugin thread that logs without end while the
    /// application dispatches nothing would otherwise grow the queue without limit. Lines past either
    /// are dropped, counted, and the count logged at the next drain. Each source has its own
    /// allowance, so a flooding library loses only its own lines, and is the one named.
    static let waitingLineLimit = 10_000
    /// See ``waitingLineLimit``.
    static let waitingByteLimit = 4 << 20

    /// What waits for the dispatch thread.
    private struct Waiting {
        /// The work, in arrival order.
        var work: [@Sendable () -> Void] = []
        /// The log lines among ``work`` by source: how many, and their bytes of text.
        var held: [String: (lines: Int, bytes: Int)] = [:]
        /// Log lines dropped since the last drain, by source.
        var dropped: [String: Int] = [:]
    }

    private let dispatchThread = Atomic<UInt>(0)
    private let pending = Mutex<Waiting>(Waiting())
    private let arrived = DispatchSemaphore(value: 0)
    /// Where the counts of dropped lines go.
    private let dropNotes: PluginHost.LogHandler

    private static var currentThread: UInt { UInt(pthread_self()) }

    /// A confinement whose counts of dropped log lines go to `dropNotes`.
    init(dropNotes: @escaping PluginHost.LogHandler) {
        self.dropNotes = dropNotes
    }

    /// Makes the calling thread the dispatch thread (each event does, so a host driven from
    /// one thread after being made on another confines to the right one).
    func adopt() {
        dispatchThread.store(Self.currentThread, ordering: .releasing)
    }

    /// Runs `work` now when called on the dispatch thread; else queues it for the dispatch thread.
    func deliver(_ work: @escaping @Sendable () -> Void) {
        guard !isDispatchThread else { return work() }
        queue(work)
    }

    /// Queues `work` for the dispatch thread's next ``drain()``, whichever thread calls: for what a
    /// worker sent, which either host thread may read (the reader thread, or the dispatch thread
    /// waiting for its reply), so that its lines keep the order the worker sent them in.
    func queue(_ work: @escaping @Sendable () -> Void) {
        pending.withLock { $0.work.append(work) }
        arrived.signal()
    }

    /// Hands `record` to `log` on the dispatch thread: at once when called there, unless `ordered`
    /// (a worker's line, queued like the rest of what its worker sent); else queued, or dropped and
    /// counted when its source's allowance (``waitingLineLimit``, ``waitingByteLimit``) is used up.
    func log(_ record: PluginLogRecord, to log: @escaping PluginHost.LogHandler, ordered: Bool) {
        if !ordered && isDispatchThread { return log(record) }
        let bytes = record.message.utf8.count
        let queued = pending.withLock { waiting in
            let held = waiting.held[record.source, default: (0, 0)]
            guard held.lines < Self.waitingLineLimit, held.bytes + bytes <= Self.waitingByteLimit else {
                waiting.dropped[record.source, default: 0] += 1
                return false
            }
            waiting.held[record.source] = (held.lines + 1, held.bytes + bytes)
            waiting.work.append { log(record) }
            return true
        }
        if queued { arrived.signal() }
    }

    /// Runs everything queued so far, in arrival order, on the calling (dispatch) thread; then logs
    /// how many lines each source had dropped.
    func drain() {
        while true {
            let batch = pending.withLock { waiting in
                defer { waiting = Waiting() }
                return waiting
            }
            guard !batch.work.isEmpty || !batch.dropped.isEmpty else { return }
            batch.work.forEach { $0() }
            for (source, count) in batch.dropped.sorted(by: { $0.key < $1.key }) {
                dropNotes(PluginLogRecord(source: HostIdentity.name, plugin: nil, level: .warning,
                                          message: "\(count) log lines of \(source) dropped: more than "
                                              + "\(Self.waitingLineLimit) lines or \(Self.waitingByteLimit >> 20) MiB "
                                              + "waited for the dispatch thread (thread confinement)"))
            }
        }
    }

    /// Runs queued work as it arrives until `done` (asked after each batch) says true.
    /// Whatever makes `done` true must itself arrive through ``deliver(_:)`` or ``queue(_:)``.
    func wait(until done: () -> Bool) {
        while true {
            drain()
            if done() { return }
            arrived.wait()
        }
    }

    /// Whether the calling thread is the dispatch thread.
    private var isDispatchThread: Bool {
        Self.currentThread == dispatchThread.load(ordering: .acquiring)
    }
}

extension FetchCompletion {
    /// This completion with its answer, misuse report and abstention handed to `confinement`'s
    /// dispatch thread: run at once when given there (``DispatchThreadConfinement/deliver(_:)``).
    func confined(to confinement: DispatchThreadConfinement) -> FetchCompletion {
        handed(to: confinement.deliver)
    }

    /// This completion with its answer, misuse report and abstention queued for `confinement`'s
    /// next drain whichever thread gives them (``DispatchThreadConfinement/queue(_:)``): for a
    /// worker's plugin, whose answer must come after the log lines the worker sent before it,
    /// which are queued the same way.
    func queued(on confinement: DispatchThreadConfinement) -> FetchCompletion {
        handed(to: confinement.queue)
    }

    private func handed(to hand: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> FetchCompletion {
        FetchCompletion(answer: { result in hand { self(result) } },
                        misuse: { problem in hand { self.reject(problem) } },
                        abstention: { hand { self.abstain() } })
    }
}
