import Synchronization

/// The completions of a worker's remote notifications, whose answers the worker sends as
/// `completion` messages: each found by its call's request id, and a late one (its
/// notification answered) named by its plugin.
final class WorkerCompletions: Sendable {
    private struct Held {
        /// By the notification call's request id, until its answer is given.
        var completions: [UInt64: FetchCompletion] = [:]
        /// The ids of the worker's plugins that were handed a completion, by their number in the worker.
        var plugins: [UInt32: PluginID] = [:]
    }

    private let held = Mutex(Held())
    private let log: PluginHost.LogHandler

    init(log: @escaping PluginHost.LogHandler) {
        self.log = log
    }

    /// The completion that plugin number `plugin` (`id`) was handed in the call `request`, until ``forget(_:)``.
    func expect(_ request: UInt64, from plugin: UInt32, id: PluginID, _ completion: FetchCompletion) {
        held.withLock { held in
            held.completions[request] = completion
            held.plugins[plugin] = id
        }
    }

    /// Drops the completion of call `request` once the notification's answer was given.
    func forget(_ request: UInt64) {
        held.withLock { _ = $0.completions.removeValue(forKey: request) }
    }

    /// How many completions are still held.
    var count: Int { held.withLock { $0.completions.count } }

    /// The worker's `completion` message: plugin `plugin` answered `result` to call `notification`;
    /// a value that is no `PB_FETCH_*` is rejected, and a late answer warned about, as the aggregation would.
    func take(notification: UInt64, plugin: UInt32, result: Int32) {
        let (completion, id) = held.withLock { ($0.completions[notification], $0.plugins[plugin]) }
        let answer = FetchResult(abiValue: result)
        if let completion {
            if let answer {
                completion(answer)
            } else {
                completion.reject("answered with \(result), which is not a PB_FETCH_* value; ignored")
            }
        } else if let id {
            log(PluginLogRecord(source: HostIdentity.name, plugin: id.rawValue, level: .warning,
                                message: FetchAggregation.lateAnswer(answer?.rawValue ?? String(result))))
        }
    }
}
