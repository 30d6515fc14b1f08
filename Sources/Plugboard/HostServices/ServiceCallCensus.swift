import Glibc
import PlugboardWorkerProtocol
import Synchronization

/// Counts one library initialization's host service calls by thread: those from
/// threads other than the one that ran `init` (the dispatch thread), how many
/// such threads there were (told apart by `pthread_self`: a thread that ended may
/// pass its identity on), and the calls refused after the library's end.
/// Thread-safe; a call from the dispatch thread costs one `pthread_self` comparison.
final class ServiceCallCensus: Sendable {
    private struct Counts {
        var otherThreadCalls: UInt64 = 0
        var otherThreads: Set<pthread_t> = []
        var refusedCalls: UInt64 = 0
    }

    /// The thread that made the census: the one that runs the library's `init`.
    private let dispatchThread: pthread_t = pthread_self()
    private let counts = Mutex(Counts())

    /// Counts a call the library's lifetime admitted (true) or refused (false), from the calling thread.
    func record(admitted: Bool) {
        guard admitted else {
            counts.withLock { $0.refusedCalls &+= 1 }
            return
        }
        let thread = pthread_self()
        guard pthread_equal(thread, dispatchThread) == 0 else { return }
        counts.withLock { counts in
            counts.otherThreadCalls &+= 1
            counts.otherThreads.insert(thread)
        }
    }

    /// The counts so far; the refused calls are those after the library's `deinit`.
    var census: ServiceCensus {
        counts.withLock {
            ServiceCensus(otherThreadCalls: $0.otherThreadCalls, otherThreads: UInt32(clamping: $0.otherThreads.count),
                          callsAfterDeinit: $0.refusedCalls)
        }
    }
}
