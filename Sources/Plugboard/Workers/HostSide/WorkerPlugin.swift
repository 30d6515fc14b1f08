import PlugboardWorkerProtocol

/// A plugin a worker process loaded: its connection and its number in that worker. Reaching it is
/// said here, once: the version gate, the call, what its outcome counts as; a worker that fails
/// goes to the host's ``WorkerSupervisor``.
struct WorkerPlugin {
    /// The worker (kept alive by the host's library list).
    let connection: Unmanaged<WorkerConnection>
    /// The plugin's number in the worker (the protocol's `call.plugin`).
    let index: UInt32

    /// Calls the plugin, `id`, in its worker with `request` through `workers`, which waits at most the
    /// call timeout; a worker that speaks a protocol older than the request needs answers `refused`.
    /// `prepare` runs just before the request is sent, given the plugin it goes to.
    ///
    /// When the worker fails, its plugins take no further part: `workers` logs the failure once, as
    /// one line naming the plugin, the callback and the library, and withdraws them. A worker that had
    /// ended between calls never received the request: when `workers` restarted it, the plugin `id` of
    /// the new worker is called instead, and answers.
    func call(_ request: CallRequest, id: PluginID, _ workers: WorkerSupervisor,
              prepare: (WorkerPlugin) -> Void = { _ in }) -> Result<CallAnswer, PluginFailure> {
        workers.record.leave()
        let callback = request.callbackName
        let connection = connection.takeUnretainedValue()
        if let refusal = connection.refusal(needing: request.introducedInMinor, for: callback.description) {
            return .success(.refused(refusal))
        }
        prepare(self)
        let outcome = workers.request(.call(plugin: index, request: request), to: connection, purpose: "a call", who: id.rawValue,
                                      callback: callback.description) { reply in
            if case .answer(let answer) = reply { answer } else { nil }
        }
        guard case .failure = outcome, connection.endedIdle, let replacement = workers.replacement(of: id, for: connection) else {
            return outcome
        }
        return replacement.call(request, id: id, workers, prepare: prepare)
    }
}

extension Result where Success == CallAnswer, Failure == PluginFailure {
    /// A lifecycle event call's outcome as its policy loop counts it: the plugin's Bool, true for a
    /// call that answers nothing, `unanswered` for a plugin that takes no part or refused, or whose
    /// worker failed (that failure added to `failures`).
    func eventAnswer(unanswered: Bool, failures: inout [PluginFailure]?) -> Bool {
        switch self {
        case .success(.bool(let answer)): return answer
        case .success(.returned), .success(.pending): return true
        case .success(.notTakingPart), .success(.state), .success(.refused): return unanswered
        case .failure(let failure):
            failures.append(failure)
            return unanswered
        }
    }

    /// A saved-state call's outcome (`callback`): nil for a plugin whose slot is NULL.
    func savedStateAnswer(_ callback: StaticString) -> SavedStateCall.Answer? {
        switch self {
        case .success(.state(let bytes)): .state(bytes)
        case .success(.returned): .restored
        case .success(.refused(let reason)): .refused(reason)
        case .success(.notTakingPart): nil
        case .success(let other): .refused("its worker answered \(other) to \(callback)")
        case .failure(let failure): .refused(failure.message)
        }
    }
}
