import Dispatch
import Glibc
import PlugboardWorkerProtocol
import Synchronization

/// Requests over one worker channel that wait for an answer, in one table by request id: the
/// host's to a worker (the dispatch thread's requests, answered by a reply, and function calls
/// from any thread, answered by a `function-result`), or a worker's own to its host (`files`,
/// `invoke`). The thread that reads the channel (the reader thread, or a waiting request) hands
/// each answer to its request; when the channel ends, every waiting request is woken and fails
/// with how it ended (the first reason wins), as swift-nio-extras' request/response handler
/// fails its promises.
final class PendingRequests: Sendable {
    /// Changed in place in the table (through `Dictionary.Values`' subscript), never copied out:
    /// a copy of a message costs more than the rest of a request's bookkeeping.
    private struct Entry {
        let signal: DispatchSemaphore
        var answer: WorkerMessage?

        /// Whether the answer came (asked without copying it).
        var isAnswered: Bool {
            if case .some = answer { return true }
            return false
        }

        /// Takes `message` as the answer unless one came before: the semaphore to signal, or nil.
        mutating func take(_ message: WorkerMessage) -> DispatchSemaphore? {
            if isAnswered { return nil }
            answer = message
            return signal
        }
    }

    private struct Table {
        /// The dispatch thread's next request id (a remote notification announces it, see ``nextRequestID``).
        var nextRequest: UInt64 = 1
        /// Function calls take ids of a range of their own (high bit set), so a call from another
        /// thread never takes the id announced for the dispatch thread.
        var nextFunctionCall: UInt64 = 1 << 63
        var entries: [UInt64: Entry] = [:]
        var ending: WorkerEnding?
        /// Whether no request waited when the channel ended: the worker ended between calls.
        var endedIdle = false
    }

    private let table = Mutex(Table())
    /// Bumped on every answer and on the end: what a waiting request spins on before it blocks
    /// (``spin(awaiting:)``).
    private let answers = Atomic<UInt64>(0)

    /// How the channel ended (the worker, or for a worker its host), once it did.
    var ending: WorkerEnding? { table.withLock { $0.ending } }

    /// Whether the channel ended by itself while no request waited (a plugin's own thread crashed the
    /// worker between calls, say): the request that finds it ended did not end it.
    var endedIdle: Bool { table.withLock { $0.endedIdle } }

    /// The request id the dispatch thread's next request takes.
    var nextRequestID: UInt64 { table.withLock { $0.nextRequest } }

    /// A request ``open(functionCall:)`` opened: its id, and what wakes its ``wait(for:timeout:interrupted:readReady:stop:)``.
    struct Request {
        let id: UInt64
        fileprivate let signal: DispatchSemaphore
    }

    /// A new waiting request, the dispatch thread's or (`functionCall`) any thread's function call,
    /// or how the channel ended.
    func open(functionCall: Bool) -> Result<Request, WorkerEnding> {
        let signal = DispatchSemaphore(value: 0)
        return table.withLock { table in
            if let ending = table.ending { return .failure(ending) }
            let id = functionCall ? table.nextFunctionCall : table.nextRequest
            if functionCall { table.nextFunctionCall += 1 } else { table.nextRequest += 1 }
            table.entries[id] = Entry(signal: signal)
            return .success(Request(id: id, signal: signal))
        }
    }

    /// Closes `request` unanswered: it was never sent.
    func cancel(_ request: Request) {
        table.withLock { _ = $0.entries.removeValue(forKey: request.id) }
    }

    /// Hands `message` to request `id`; false when nothing awaits it (an unknown id, or a second answer).
    func answer(_ id: UInt64, with message: WorkerMessage) -> Bool {
        let signal = table.withLock { table -> DispatchSemaphore? in
            guard let index = table.entries.index(forKey: id) else { return nil }
            return table.entries.values[index].take(message)
        }
        answers.add(1, ordering: .releasing)
        signal?.signal()
        return signal != nil
    }

    /// Records how the channel ended (the first reason wins, returned) and wakes every waiting request.
    /// `byThePeer`: the channel ended by itself (the worker died), not because a request ended it;
    /// `unsent`: a request that found it ended as it was sent, which the worker never received.
    @discardableResult
    func end(_ reason: WorkerEnding, byThePeer: Bool = false, unsent: Request? = nil) -> WorkerEnding {
        let (first, signals) = table.withLock { table in
            if table.ending == nil {
                let idle = table.entries.keys.allSatisfy { $0 == unsent?.id }
                (table.ending, table.endedIdle) = (reason, byThePeer && idle)
            }
            return (table.ending ?? reason, table.entries.values.map(\.signal))
        }
        answers.add(1, ordering: .releasing)
        for signal in signals { signal.signal() }
        return first
    }

    /// How long a waiting request spins before it blocks: about a round trip over an idle channel.
    static let spinNanoseconds: UInt64 = 50_000

    /// Spins, reading what the other side sent (`readReady`) and yielding the processor, until an
    /// answer or the end comes or ``spinNanoseconds`` pass, unless request `id` is answered
    /// already. A reply that comes within the spin is read by the thread that waits for it,
    /// which is neither put to sleep nor woken, and no other thread is woken to hand it over
    /// (BENCHMARKS.md, "Worker round trip").
    private func spin(awaiting id: UInt64, readReady: () -> Void) {
        // Read before the table: an answer that comes after the look bumps the count past it.
        let seen = answers.load(ordering: .acquiring)
        let waits = table.withLock { table in
            table.ending == nil && table.entries.index(forKey: id).map { !table.entries.values[$0].isAnswered } == true
        }
        guard waits else { return }
        let until = DispatchTime.now().uptimeNanoseconds + Self.spinNanoseconds
        var spins = 0
        while answers.load(ordering: .acquiring) == seen {
            readReady()
            guard answers.load(ordering: .acquiring) == seen else { return }
            spins += 1
            if spins & 15 == 0, DispatchTime.now().uptimeNanoseconds > until { return }
            sched_yield()
        }
    }

    /// Waits for `request`'s answer and closes it: until it comes, the channel ends, `timeout`
    /// passes (nil: never) or `interrupted` says true (asked every tenth of a second); a timeout or
    /// an interruption is handed to `stop`, which ends the worker. While it spins, `readReady`
    /// handles what the other side sent, when no other thread is doing so. An answer that arrived
    /// counts even when the worker ended right after it (it exits after `bye`).
    func wait(for request: Request, timeout: Duration?, interrupted: () -> Bool, readReady: () -> Void,
              stop: (WorkerEnding) -> WorkerEnding) -> Result<WorkerMessage, WorkerEnding> {
        let id = request.id
        defer { table.withLock { _ = $0.entries.removeValue(forKey: id) } }
        spin(awaiting: id, readReady: readReady)
        // Most answers come within the spin: taken then, with no deadline made and no wait.
        if let outcome = outcome(of: id) { return outcome }
        let deadline: DispatchTime = timeout.map { .now() + .nanoseconds(Int(clamping: $0.nanoseconds)) } ?? .distantFuture
        while true {
            let woken = request.signal.wait(timeout: min(deadline, .now() + .milliseconds(100))) == .success
            if let outcome = outcome(of: id) { return outcome }
            if woken { continue }
            if DispatchTime.now() >= deadline { return .failure(stop(.timedOut(timeout ?? .zero))) }
            if interrupted() { return .failure(stop(.interrupted)) }
        }
    }

    /// Request `id`'s answer, moved out of its entry, or how the channel ended; nil while neither has come.
    private func outcome(of id: UInt64) -> Result<WorkerMessage, WorkerEnding>? {
        table.withLock { table in
            if let index = table.entries.index(forKey: id), let answer = table.entries.values[index].answer.take() {
                return .success(answer)
            }
            return table.ending.map { .failure($0) }
        }
    }
}
