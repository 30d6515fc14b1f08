import CPlugboard
import PlugboardPluginAPI

/// The one C vtable per concern, shared by every Swift plugin of the library: each slot reads the
/// plugin out of `ctx` (``PluginContext``) and calls its Swift method. Made once, never freed.
///
/// A NULL `ctx` (which the host never passes for a Swift plugin) gets the header's NULL-slot answer.
enum ConcernTables {
    static let launch = RecordPointer(pb_launch_t(
        struct_size: UInt32(MemoryLayout<pb_launch_t>.size),
        will_finish_launching: { ctx, json, length in
            PluginContext.from(ctx)?.launch?.willFinishLaunching(options: text(json, length)) ?? true
        },
        did_finish_launching: { ctx, json, length in
            PluginContext.from(ctx)?.launch?.didFinishLaunching(options: text(json, length)) ?? true
        }))

    static let openURL = RecordPointer(pb_open_url_t(
        struct_size: UInt32(MemoryLayout<pb_open_url_t>.size),
        open_url: { ctx, url, urlLength, json, jsonLength in
            PluginContext.from(ctx)?.openURL?.open(url: text(url, urlLength), options: text(json, jsonLength)) ?? false
        }))

    static let userActivity = RecordPointer(pb_user_activity_t(
        struct_size: UInt32(MemoryLayout<pb_user_activity_t>.size),
        continue_user_activity: { ctx, type, typeLength, json, jsonLength in
            PluginContext.from(ctx)?.userActivity?.continueUserActivity(
                type: text(type, typeLength), userInfo: text(json, jsonLength)) ?? false
        }))

    static let remoteNotifications = RecordPointer(pb_remote_notifications_t(
        struct_size: UInt32(MemoryLayout<pb_remote_notifications_t>.size),
        did_register: { ctx, token, length in
            let bytes = token.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
            PluginContext.from(ctx)?.remoteNotifications?.didRegisterForRemoteNotifications(deviceToken: bytes)
        },
        did_fail_to_register: { ctx, error, length in
            PluginContext.from(ctx)?.remoteNotifications?.didFailToRegisterForRemoteNotifications(
                error: text(error, length))
        },
        did_receive_remote_notification: { ctx, json, length, completion in
            guard let completion else { return }
            let answer = CompletionPointer(completion: completion)
            let plugin = PluginContext.from(ctx)?.remoteNotifications
            plugin?.didReceiveRemoteNotification(userInfo: text(json, length), completion: FetchCompletion(answer.complete))
        }))

    static let memory = RecordPointer(pb_memory_t(
        struct_size: UInt32(MemoryLayout<pb_memory_t>.size),
        did_receive_memory_warning: { ctx in PluginContext.from(ctx)?.memory?.didReceiveMemoryWarning() }))

    static let protectedData = RecordPointer(pb_protected_data_t(
        struct_size: UInt32(MemoryLayout<pb_protected_data_t>.size),
        will_become_unavailable: { ctx in PluginContext.from(ctx)?.protectedData?.protectedDataWillBecomeUnavailable() },
        did_become_available: { ctx in PluginContext.from(ctx)?.protectedData?.protectedDataDidBecomeAvailable() }))

    static let appState = RecordPointer(pb_app_state_t(
        struct_size: UInt32(MemoryLayout<pb_app_state_t>.size),
        did_become_active: { ctx in PluginContext.from(ctx)?.appState?.didBecomeActive() },
        will_resign_active: { ctx in PluginContext.from(ctx)?.appState?.willResignActive() },
        did_enter_background: { ctx in PluginContext.from(ctx)?.appState?.didEnterBackground() },
        will_enter_foreground: { ctx in PluginContext.from(ctx)?.appState?.willEnterForeground() }))

    static let termination = RecordPointer(pb_termination_t(
        struct_size: UInt32(MemoryLayout<pb_termination_t>.size),
        will_terminate: { ctx in PluginContext.from(ctx)?.termination?.willTerminate() }))

    /// The `length` UTF-8 bytes at `bytes` as a String ("" for NULL); invalid UTF-8 is repaired.
    private static func text(_ bytes: UnsafePointer<CChar>?, _ length: Int) -> String {
        guard let bytes else { return "" }
        return bytes.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}

/// The host's completion for one notification: valid for the life of the process and answerable
/// from any thread, so it may be shared.
struct CompletionPointer: @unchecked Sendable {
    let completion: UnsafePointer<pb_fetch_completion_t>

    /// Answers the host (the host ignores and reports any answer after the first).
    @Sendable func complete(_ result: FetchResult) {
        completion.pointee.complete?(completion, result.abiValue)
    }
}
