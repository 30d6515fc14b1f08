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
            return .bool(options.withCString { slot(ctx, $0, options.utf8.count) })
        case .didFinishLaunching(let options):
            guard let slot = definition.launch?.did_finish_launching else { return .notTakingPart }
            return .bool(options.withCString { slot(ctx, $0, options.utf8.count) })
        case .openURL(let url, let options):
            guard let slot = definition.openURL?.open_url else { return .notTakingPart }
            return .bool(url.withCString { url8 in
                options.withCString { slot(ctx, url8, url.utf8.count, $0, options.utf8.count) }
            })
        case .continueUserActivity(let type, let userInfo):
            guard let slot = definition.userActivity?.continue_user_activity else { return .notTakingPart }
            return .bool(type.withCString { type8 in
                userInfo.withCString { slot(ctx, type8, type.utf8.count, $0, userInfo.utf8.count) }
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
            userInfo.withCString { slot(ctx, $0, userInfo.utf8.count, handle) }
            return .pending
        case .registerToken(let token):
            guard let slot = definition.remoteNotifications?.did_register else { return .notTakingPart }
            token.withUnsafeBufferPointer { slot(ctx, $0.baseAddress, $0.count) }
        case .registerFailed(let error):
            guard let slot = definition.remoteNotifications?.did_fail_to_register else { return .notTakingPart }
            error.withCString { slot(ctx, $0, error.utf8.count) }
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
        }
        return .returned
    }
}
