import Dispatch
import Glibc
import Synchronization

/// ``PluginDecorator/threadConfinement``: what plugin threads send the host (log
/// lines, notification completions; the bus's posts always are, by the bus itself) is queued and run on
/// the dispatch thread, the thread that delivers events, like an application's
/// main-queue hop. Thread-safe; ``drain()`` and ``wait(until:)`` run on the dispatch thread.
final class DispatchThreadConfinement: Sendable {
    private let dispatchThread = Atomic<UInt>(0)
    private let pending = Mutex<[@Sendable () -> Void]>([])
    private let arrived = DispatchSemaphore(value: 0)

    private static var currentThread: UInt { UInt(pthread_self()) }

    /// Makes the calling thread the dispatch thread (each event does, so a host driven from
    /// one thread after being made on another confines to the right one).
    func adopt() {
        dispatchThread.store(Self.currentThread, ordering: .releasing)
    }

    /// Runs `work` now when called on the dispatch thread; else queues it for the dispatch thread.
    func deliver(_ work: @escaping @Sendable () -> Void) {
        guard Self.currentThread != dispatchThread.load(ordering: .acquiring) else {
            work()
            return
        }
        queue(work)
    }

    /// Queues `work` for the dispatch thread's next ``drain()``, whichever thread calls: for what a
    /// worker sent, which either host thread may read (the reader thread, or the dispatch thread
    /// waiting for its reply), so that its lines keep the order the worker sent them in.
    func queue(_ work: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(work) }
        arrived.signal()
    }

    /// Runs everything queued so far, in arrival order, on the calling (dispatch) thread.
    func drain() {
        while true {
            let batch = pending.withLock { pending -> [@Sendable () -> Void] in
                defer { pending.removeAll() }
                return pending
            }
            guard !batch.isEmpty else { return }
            batch.forEach { $0() }
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
