import CPlugboard
import PlugboardWorkerProtocol

/// One call of one plugin's C slot in a worker, with the event's arguments as
/// the `call` message carried them: what the worker does for each `call`.
enum WorkerCall {
    /// Calls the slot of `definition` for `event`; a remote notification's
    /// completion goes through `gate`, tagged with the call's request id `notification`.
    static func invoke(_ definition: CPluginDefinition, library: LoadedLibrary, event: WorkerEvent, plugin: UInt32,
                       notification: UInt64, gate: CompletionGate) -> CallAnswer {
        let ctx = definition.ctx
        switch event {
        case .willFinishLaunching(let options):
            guard let slot = definition.launch?.will_finish_launching else { return .notTakingPart }
            return .bool(withCText(options) { slot(ctx, $0, $1) })
        case .didFinishLaunching(let options):
            guard let slot = definition.launch?.did_finish_launching else { return .notTakingPart }
            return .bool(withCText(options) { slot(ctx, $0, $1) })
        case .openURL(let url, let options):
            guard let slot = definition.openURL?.open_url else { return .notTakingPart }
            return .bool(withCText(url) { url8, urlLength in
                withCText(options) { slot(ctx, url8, urlLength, $0, $1) }
            })
        case .continueUserActivity(let type, let userInfo):
            guard let slot = definition.userActivity?.continue_user_activity else { return .notTakingPart }
            return .bool(withCText(type) { type8, typeLength in
                withCText(userInfo) { slot(ctx, type8, typeLength, $0, $1) }
            })
        case .remoteNotification(let userInfo, _):
            guard let slot = definition.remoteNotifications?.did_receive_remote_notification else { return .notTakingPart }
            let completion = FetchCompletion(
                answer: { result in
                    gate.complete(.completion(notification: notification, plugin: plugin, result: Int32(result.abiValue)))
                },
                misuse: { problem in
                    gate.complete(.log(pluginID: definition.descriptor.id.rawValue,
                                       level: PluginLogRecord.Level.warning.abiValue, message: problem))
                },
                abstention: {})
            let handle = library.completions.handle(for: completion)
            withCText(userInfo) { slot(ctx, $0, $1, handle) }
            return .pending
        case .registerToken(let token):
            guard let slot = definition.remoteNotifications?.did_register else { return .notTakingPart }
            token.withUnsafeBufferPointer { slot(ctx, $0.baseAddress, $0.count) }
        case .registerFailed(let error):
            guard let slot = definition.remoteNotifications?.did_fail_to_register else { return .notTakingPart }
            withCText(error) { slot(ctx, $0, $1) }
        case .memoryWarning:
            guard let slot = definition.memory?.did_receive_memory_warning else { return .notTakingPart }
            slot(ctx)
        case .protectedDataWillBecomeUnavailable:
            guard let slot = definition.protectedData?.will_become_unavailable else { return .notTakingPart }
            slot(ctx)
        case .protectedDataDidBecomeAvailable:
            guard let slot = definition.protectedData?.did_become_available else { return .notTakingPart }
            slot(ctx)
        case .didBecomeActive:
            guard let slot = definition.appState?.did_become_active else { return .notTakingPart }
            slot(ctx)
        case .willResignActive:
            guard let slot = definition.appState?.will_resign_active else { return .notTakingPart }
            slot(ctx)
        case .didEnterBackground:
            guard let slot = definition.appState?.did_enter_background else { return .notTakingPart }
            slot(ctx)
        case .willEnterForeground:
            guard let slot = definition.appState?.will_enter_foreground else { return .notTakingPart }
            slot(ctx)
        case .willTerminate:
            guard let slot = definition.termination?.will_terminate else { return .notTakingPart }
            slot(ctx)
        case .saveState:
            return answer(definition.savedState.flatMap { SavedStateCall.save($0, ctx: ctx) })
        case .restoreState(let savedVersion, let state):
            return answer(definition.savedState.flatMap {
                SavedStateCall.restore($0, ctx: ctx, savedVersion: savedVersion, state: state)
            })
        }
        return .returned
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

    /// Runs `body` with `text` as a C callback takes it: the bytes as they came (UTF-8
    /// or not), NUL-terminated, and their count without the NUL; valid during `body` only.
    private static func withCText<Result>(_ text: [UInt8], _ body: (UnsafePointer<CChar>, Int) -> Result) -> Result {
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: text.count + 1)
        defer { copy.deallocate() }
        UnsafeMutableRawBufferPointer(start: copy, count: text.count).copyBytes(from: text)
        copy[text.count] = 0
        return body(copy, text.count)
    }
}
