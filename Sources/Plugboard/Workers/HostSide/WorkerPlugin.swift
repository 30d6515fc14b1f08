import PlugboardWorkerProtocol

/// A plugin a worker process loaded: its connection and its number in that worker. The host
/// calls it with ``PluginHost/callWorker(_:_:id:)`` (the version gate, the call, and the report
/// and withdrawal of a worker that failed); what a call's outcome counts as is said here, once.
struct WorkerPlugin {
    /// The worker (kept alive by the host's library list).
    let connection: Unmanaged<WorkerConnection>
    /// The plugin's number in the worker (the protocol's `call.plugin`).
    let index: UInt32
}

extension Result where Success == CallAnswer, Failure == PluginFailure {
    /// A lifecycle event call's outcome as its policy loop counts it: the plugin's Bool, true for a
    /// call that answers nothing, `unanswered` for a plugin that takes no part or refused, or whose
    /// worker failed (that failure added to `failures`).
    func eventAnswer(unanswered: Bool, failures: inout [PluginFailure]) -> Bool {
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
