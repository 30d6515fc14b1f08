import Dispatch
import PlugboardSystem
import Synchronization

/// The threads plugin workers are started from, which never end.
///
/// A worker asks the kernel to kill it when its parent ends (`PR_SET_PDEATHSIG`), so that it never
/// outlives the host; and the kernel counts as its parent the *thread* that started it, not the
/// host's process. A worker started from a thread that ends (a Dispatch pool thread, which ends
/// after 5 s idle; an application's short-lived thread) was killed with SIGKILL while the host ran
/// on. Started from one of these, a worker dies with the host, and only then.
///
/// Several, as workers are started from several threads at once (``LibraryLoader/prestartLanes``):
/// each start waits until its child has replaced itself with the worker. A start goes to the next
/// thread in turn.
final class WorkerStartThreads: Sendable {
    /// The process's threads, started on the first worker start.
    static let shared = WorkerStartThreads(count: LibraryLoader.prestartLanes)

    private let lanes: [Lane]
    private let next = Atomic(0)

    private init(count: Int) {
        lanes = (0..<max(1, count)).compactMap { _ in Lane.started() }
    }

    /// Runs `body` on one of the threads, waits for it and returns what it returned; on the calling
    /// thread when no thread could be started.
    func run<Value: Sendable, Failure: Error>(_ body: @escaping @Sendable () throws(Failure) -> Value) throws(Failure) -> Value {
        guard !lanes.isEmpty else { return try body() }
        let lane = lanes[next.wrappingAdd(1, ordering: .relaxed).oldValue % lanes.count]
        let outcome = Outcome<Value, Failure>()
        lane.submit {
            outcome.result.withLock { $0 = Result { () throws(Failure) -> Value in try body() } }
            outcome.done.signal()
        }
        outcome.done.wait()
        // Set before `done` is signalled, so always there.
        guard let result = outcome.result.withLock({ $0 }) else { return try body() }
        return try result.get()
    }

    /// What one start gave, handed from a lane's thread to the caller.
    private final class Outcome<Value: Sendable, Failure: Error>: Sendable {
        let result = Mutex<Result<Value, Failure>?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    /// One thread and the work waiting for it.
    private final class Lane: Sendable {
        private let work = Mutex<[@Sendable () -> Void]>([])
        private let arrived = DispatchSemaphore(value: 0)

        /// A lane with its thread running; nil when no thread can be started.
        static func started() -> Lane? {
            let lane = Lane()
            do {
                try startDetachedThread { lane.serve() }
            } catch {
                return nil
            }
            return lane
        }

        /// Queues `job` for the thread.
        func submit(_ job: @escaping @Sendable () -> Void) {
            work.withLock { $0.append(job) }
            arrived.signal()
        }

        /// The thread's whole life: the jobs, in order, as they come.
        private func serve() -> Never {
            while true {
                arrived.wait()
                let jobs = work.withLock { work in
                    defer { work.removeAll() }
                    return work
                }
                jobs.forEach { $0() }
            }
        }
    }
}
