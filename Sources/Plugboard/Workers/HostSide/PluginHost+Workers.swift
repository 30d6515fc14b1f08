import PlugboardWorkerProtocol

/// Calling plugins in workers, and what the host does when a worker fails.
extension PluginHost {
    /// Calls `plugin` in its worker with `request`, waiting at most the call timeout; a worker
    /// that speaks a protocol older than the request needs answers `refused`. When the worker
    /// fails, its plugins take no further part: the failure is logged once, as one line naming
    /// the plugin, the callback and the library.
    func callWorker(_ plugin: WorkerPlugin, _ request: CallRequest, id: PluginID) -> Result<CallAnswer, PluginFailure> {
        calls.leave()
        let callback = request.callbackName
        let connection = plugin.connection.takeUnretainedValue()
        if let refusal = connection.refusal(needing: request.introducedInMinor, for: callback.description) {
            return .success(.refused(refusal))
        }
        let outcome = connection.request(.call(plugin: plugin.index, request: request), timeout: callTimeout,
                                         interrupted: interruption)
        switch outcome {
        case .success(.answer(let answer)):
            return .success(answer)
        case .success(let other):
            return .failure(workerFailed(connection, connection.abandon("it answered \(other.kind) to a call"), who: id.rawValue,
                                         callback: callback.description))
        case .failure(let ending):
            return .failure(workerFailed(connection, ending, who: id.rawValue, callback: callback.description))
        }
    }

    /// Reports `ending` (once per worker) and withdraws the worker's plugins; restarts
    /// the worker while the library has restarts left (its plugins take part again
    /// from the next event on).
    func workerFailed(_ connection: WorkerConnection, _ ending: WorkerEnding, who: String,
                      callback: String) -> PluginFailure {
        let sentence = ending.sentence(who: who, callback: callback, library: connection.library)
        if connection.markReported() {
            logHandler(PluginLogRecord(source: HostIdentity.name, plugin: nil, level: .error, message: sentence))
        }
        let failure = PluginFailure(plugin: PluginID(unchecked: who), message: sentence)
        withdrawFailedWorker(connection, failure: failure)
        return failure
    }

    /// Records `failure` and, the first time for `connection`, withdraws the worker's plugins and
    /// restarts it while the library has restarts left. A worker that failed in a plugin's
    /// `invoke` on another thread was reported there; it is withdrawn here, on the dispatch
    /// thread, at the host's next call into it.
    func withdrawFailedWorker(_ connection: WorkerConnection, failure: PluginFailure) {
        failures.append(failure)
        guard connection.markWithdrawn() else { return }
        notifications.removeObservers(of: ObjectIdentifier(connection))
        registry.removeAll(from: .library(path: connection.library))
        if let report = loader.restart(connection), report.status == .loaded, let store = stateStore {
            restoreRestarted(Set(report.plugins.map(\.descriptor.id)), from: store)
        }
    }

    /// Gives the plugins of a restarted worker their saved state back (a plugin of the saved-state
    /// concern restarts without its memory otherwise, and would save that empty memory over the
    /// state of the previous run at will-terminate); each outcome is one log line.
    private func restoreRestarted(_ plugins: Set<PluginID>, from store: SavedStateStore) {
        for entry in restoreState(from: store, only: plugins).entries {
            let what = switch entry.outcome {
            case .restored: "restored its saved state (\(entry.bytes ?? 0) bytes) after the restart"
            default: "restarted without its saved state: " + (entry.warning ?? entry.outcome.rawValue)
            }
            logHandler(PluginLogRecord(source: HostIdentity.name, plugin: entry.plugin.rawValue,
                                       level: entry.outcome == .restored ? .info : .warning, message: what))
        }
    }
}
