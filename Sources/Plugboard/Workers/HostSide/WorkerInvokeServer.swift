import CPlugboard
import PlugboardSystem
import PlugboardWorkerProtocol
import Synchronization

/// Runs a worker's `invoke` requests (its plugins calling other plugins' functions) on the host's
/// function invoker, under the library's gate, and answers each with an `invoke-reply` (handed to
/// `reply`, which sends it); checks its prepared invocations (`check-invoke`) alike, without calling.
struct WorkerInvokeServer: Sendable {
    let invoker: FunctionInvoker?
    let gate: ServiceGate
    /// The worker's `invoke`s running now, each on a host thread until its function returns.
    private let running = RunningCount()

    /// The most `invoke`s of one worker the host runs at once: more are answered
    /// PB_ERR_UNAVAILABLE, so a worker cannot take the host's threads with requests it never
    /// lets finish. Four times the nesting limit, so nesting alone never reaches it.
    static let concurrentLimit = 4 * Int(FunctionInvoker.depthLimit)

    /// Serves one `invoke` on a thread of its own (the invoked function may be in this worker
    /// again, whose `function-result` the reader thread must be free to read). The caller is in
    /// another process: a `pointer` cannot pass.
    func serve(_ function: String, depth: UInt32, arguments: [PluginValue], reply: @escaping @Sendable (InvokeResult) -> Void) {
        guard running.enter(below: Self.concurrentLimit) else {
            reply(.failure(status: PB_ERR_UNAVAILABLE, message: "invoke \(function): "
                + "this worker has \(Self.concurrentLimit) invocations running already, the most the host runs at once"))
            return
        }
        do {
            try startDetachedThread { [self] in
                defer { running.leave() }
                reply(run(function, depth: depth, arguments: arguments))
            }
        } catch {
            running.leave()
            reply(.failure(status: PB_ERR_UNAVAILABLE, message: "invoke \(function): no thread to run it (\(error))"))
        }
    }

    /// Runs one `invoke`: its answer.
    private func run(_ function: String, depth: UInt32, arguments: [PluginValue]) -> InvokeResult {
        if let refusal = gate.refusal(.invoke) {
            return .failure(status: PB_ERR_DENIED, message: "invoke \(function): \(refusal)")
        }
        let outcome = invoker?.invoke(function, arguments, depth: depth, caller: .worker)
            ?? .failure(InvokeFailure(status: PB_ERR_UNAVAILABLE, message: "invoke \(function): this host serves no invocations"))
        return switch outcome {
        case .success(let value): .value(value)
        case .failure(let failure): .failure(status: failure.status, message: failure.message)
        }
    }

    /// Answers one `check-invoke` at once (it runs no plugin code): whether `invoke` would take
    /// `function` with `arguments` from this worker.
    func check(_ function: String, arguments: [PluginValue], reply: (InvokeResult) -> Void) {
        if let refusal = gate.refusal(.invoke) {
            reply(.failure(status: PB_ERR_DENIED, message: "prepare_invoke \(function): \(refusal)"))
        } else if let invoker {
            switch invoker.check(function, arguments, caller: .worker) {
            case .success: reply(.value(.void))
            case .failure(let failure): reply(.failure(status: failure.status, message: failure.message))
            }
        } else {
            reply(.failure(status: PB_ERR_UNAVAILABLE, message: "prepare_invoke \(function): this host serves no invocations"))
        }
    }
}

/// How many of something run now, counted from any thread. (Not a `DispatchSemaphore`: one
/// released while below its starting count traps, and a hung invocation never gives its slot back.)
final class RunningCount: Sendable {
    private let count = Atomic(0)

    /// Counts one more unless `limit` run already; whether it did.
    func enter(below limit: Int) -> Bool {
        var current = count.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = count.compareExchange(expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Counts one fewer.
    func leave() {
        count.subtract(1, ordering: .releasing)
    }
}
