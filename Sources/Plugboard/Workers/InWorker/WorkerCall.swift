import CPlugboard
import PlugboardWorkerProtocol

/// One call of one plugin's C slot in a worker, with the arguments as the `call` message
/// carried them: what the worker does for each `call`.
enum WorkerCall {
    /// Calls the slot of `definition` for `request`; a remote notification's completion goes
    /// through `gate` (which only a remote notification needs), tagged with the call's request id `notification`.
    static func invoke(_ definition: CPluginDefinition, library: LoadedLibrary, request: CallRequest, plugin: UInt32,
                       notification: UInt64, gate: CompletionGate?) -> CallAnswer {
        let ctx = definition.ctx
        switch request {
        case .event(let event):
            // The completion is made in the slot's call, and only with a gate: a closure kept in a
            // local would escape, a context allocated on every call.
            guard let answer = event.withCArguments({ arguments in
                definition.vtables.callSlot(event, ctx: ctx, arguments, completion: {
                    gate.map { completion(through: $0, definition: definition, library: library, plugin: plugin,
                                          notification: notification) }
                })
            }) else { return .notTakingPart }
            return switch event.kind.policy {
            case .callAllAnd, .firstTrueWins: .bool(answer)
            case .callAllStrongestFetch: .pending
            case .broadcast, .broadcastReverse: .returned
            }
        case .saveState:
            return answer(definition.vtables.savedState.flatMap { SavedStateCall.save($0, ctx: ctx) })
        case .restoreState(let savedVersion, let state):
            return answer(definition.vtables.savedState.flatMap {
                SavedStateCall.restore($0, ctx: ctx, savedVersion: savedVersion, state: state)
            })
        }
    }

    /// The completion handle a remote notification's plugin gets: its answer, or its misuse, goes
    /// out through `gate`, behind the call's answer.
    private static func completion(through gate: CompletionGate, definition: CPluginDefinition, library: LoadedLibrary,
                                   plugin: UInt32, notification: UInt64) -> UnsafePointer<pb_fetch_completion_t> {
        library.completions.handle(for: FetchCompletion(
            answer: { result in
                gate.complete(.completion(notification: notification, plugin: plugin, result: Int32(result.abiValue)))
            },
            misuse: { problem in
                gate.complete(.log(pluginID: definition.descriptor.id.rawValue,
                                   level: PluginLogRecord.Level.warning.abiValue, message: problem))
            },
            abstention: {}))
    }

    /// A saved-state call's answer as the protocol carries it (nil: the slot is NULL).
    private static func answer(_ answer: SavedStateCall.Answer?) -> CallAnswer {
        switch answer {
        case nil: .notTakingPart
        case .state(let bytes): .state(bytes)
        case .restored: .returned
        case .refused(let reason): .refused(reason)
        }
    }
}
