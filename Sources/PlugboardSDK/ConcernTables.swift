import CPlugboard
import PlugboardPluginAPI

/// The one C vtable per concern, shared by every Swift plugin of the library that has no entries of
/// its own (`@Plugin`): each slot reads the plugin's context out of `ctx` (``PluginContext``) and
/// calls the plugin through its conformance (``ConcernCalls``). Made once, never freed.
///
/// A NULL `ctx` (which the host never passes for a Swift plugin) gets the header's NULL-slot answer.
enum ConcernTables {
    static let launch = RecordPointer(pb_launch_t(
        struct_size: UInt32(MemoryLayout<pb_launch_t>.size),
        will_finish_launching: { ctx, json, length in
            PluginContext.with(ctx, \.launch, else: true) { ConcernCalls.willFinishLaunching($0, json, length) }
        },
        did_finish_launching: { ctx, json, length in
            PluginContext.with(ctx, \.launch, else: true) { ConcernCalls.didFinishLaunching($0, json, length) }
        }))

    static let openURL = RecordPointer(pb_open_url_t(
        struct_size: UInt32(MemoryLayout<pb_open_url_t>.size),
        open_url: { ctx, url, urlLength, json, jsonLength in
            PluginContext.with(ctx, \.openURL, else: false) { ConcernCalls.openURL($0, url, urlLength, json, jsonLength) }
        }))

    static let userActivity = RecordPointer(pb_user_activity_t(
        struct_size: UInt32(MemoryLayout<pb_user_activity_t>.size),
        continue_user_activity: { ctx, type, typeLength, json, jsonLength in
            PluginContext.with(ctx, \.userActivity, else: false) {
                ConcernCalls.continueUserActivity($0, type, typeLength, json, jsonLength)
            }
        }))

    static let remoteNotifications = RecordPointer(pb_remote_notifications_t(
        struct_size: UInt32(MemoryLayout<pb_remote_notifications_t>.size),
        did_register: { ctx, token, length in
            PluginContext.with(ctx, \.remoteNotifications, else: ()) { ConcernCalls.didRegister($0, token, length) }
        },
        did_fail_to_register: { ctx, error, length in
            PluginContext.with(ctx, \.remoteNotifications, else: ()) { ConcernCalls.didFailToRegister($0, error, length) }
        },
        did_receive_remote_notification: { ctx, json, length, completion in
            PluginContext.with(ctx, \.remoteNotifications, else: ()) { ConcernCalls.didReceive($0, json, length, completion) }
        }))

    static let memory = RecordPointer(pb_memory_t(
        struct_size: UInt32(MemoryLayout<pb_memory_t>.size),
        did_receive_memory_warning: { ctx in PluginContext.with(ctx, \.memory, else: ()) { $0.didReceiveMemoryWarning() } }))

    static let protectedData = RecordPointer(pb_protected_data_t(
        struct_size: UInt32(MemoryLayout<pb_protected_data_t>.size),
        will_become_unavailable: { ctx in
            PluginContext.with(ctx, \.protectedData, else: ()) { $0.protectedDataWillBecomeUnavailable() }
        },
        did_become_available: { ctx in PluginContext.with(ctx, \.protectedData, else: ()) { $0.protectedDataDidBecomeAvailable() } }))

    static let appState = RecordPointer(pb_app_state_t(
        struct_size: UInt32(MemoryLayout<pb_app_state_t>.size),
        did_become_active: { ctx in PluginContext.with(ctx, \.appState, else: ()) { $0.didBecomeActive() } },
        will_resign_active: { ctx in PluginContext.with(ctx, \.appState, else: ()) { $0.willResignActive() } },
        did_enter_background: { ctx in PluginContext.with(ctx, \.appState, else: ()) { $0.didEnterBackground() } },
        will_enter_foreground: { ctx in PluginContext.with(ctx, \.appState, else: ()) { $0.willEnterForeground() } }))

    static let termination = RecordPointer(pb_termination_t(
        struct_size: UInt32(MemoryLayout<pb_termination_t>.size),
        will_terminate: { ctx in PluginContext.with(ctx, \.termination, else: ()) { $0.willTerminate() } }))

    /// `save_state` gives a copy of the plugin's bytes that `release_state` frees; nil saves nothing
    /// (PB_ERR_UNAVAILABLE: the host keeps the previous state). `restore_state` answers
    /// PB_ERR_INVALID_ARGUMENT when the plugin returns false. Every plugin's saved state goes
    /// through this table: it copies bytes either way, so an entry of the type's own gains nothing.
    static let savedState = RecordPointer(pb_saved_state_t(
        struct_size: UInt32(MemoryLayout<pb_saved_state_t>.size),
        save_state: { ctx, out in
            guard let out, let state = PluginContext.with(ctx, \.savedState, else: nil, { $0.saveState() }) else { return PB_ERR_UNAVAILABLE }
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, state.count))
            copy.initialize(from: state, count: state.count)
            out.pointee = pb_bytes_t(data: UnsafePointer(copy), size: state.count)
            return PB_OK
        },
        release_state: { _, data, _ in UnsafeMutablePointer(mutating: data)?.deallocate() },
        restore_state: { ctx, version, data, size in
            let state = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
            let savedVersion = version.map { String(cString: $0) } ?? ""
            let taken = PluginContext.with(ctx, \.savedState, else: false) { $0.restoreState(state, savedVersion: savedVersion) }
            return taken ? PB_OK : PB_ERR_INVALID_ARGUMENT
        }))
}

/// What a C slot that carries text or bytes does with the plugin: lends them and calls its method.
/// One body for both ways a slot reaches a plugin: the shared tables (``ConcernTables``, through its
/// conformance) and a type's own entries (``PluginEntries``, on the concrete type, inlined).
@usableFromInline
enum ConcernCalls {
    @inlinable @inline(__always)
    static func willFinishLaunching(_ plugin: some LaunchPlugin, _ json: UnsafePointer<CChar>?, _ length: Int) -> Bool {
        text(json, length) { plugin.willFinishLaunching(options: $0) }
    }

    @inlinable @inline(__always)
    static func didFinishLaunching(_ plugin: some LaunchPlugin, _ json: UnsafePointer<CChar>?, _ length: Int) -> Bool {
        text(json, length) { plugin.didFinishLaunching(options: $0) }
    }

    @inlinable @inline(__always)
    static func openURL(_ plugin: some OpenURLPlugin, _ url: UnsafePointer<CChar>?, _ urlLength: Int,
                        _ json: UnsafePointer<CChar>?, _ jsonLength: Int) -> Bool {
        text(url, urlLength) { url in text(json, jsonLength) { plugin.open(url: url, options: $0) } }
    }

    @inlinable @inline(__always)
    static func continueUserActivity(_ plugin: some UserActivityPlugin, _ type: UnsafePointer<CChar>?, _ typeLength: Int,
                                     _ json: UnsafePointer<CChar>?, _ jsonLength: Int) -> Bool {
        text(type, typeLength) { type in text(json, jsonLength) { plugin.continueUserActivity(type: type, userInfo: $0) } }
    }

    @inlinable @inline(__always)
    static func didRegister(_ plugin: some RemoteNotificationPlugin, _ token: UnsafePointer<UInt8>?, _ length: Int) {
        plugin.didRegisterForRemoteNotifications(deviceToken: lentBuffer(token, count: length).span)
    }

    @inlinable @inline(__always)
    static func didFailToRegister(_ plugin: some RemoteNotificationPlugin, _ error: UnsafePointer<CChar>?, _ length: Int) {
        text(error, length) { plugin.didFailToRegisterForRemoteNotifications(error: $0) }
    }

    /// Nothing when the host passes no completion (it always passes one).
    @inlinable @inline(__always)
    static func didReceive(_ plugin: some RemoteNotificationPlugin, _ json: UnsafePointer<CChar>?, _ length: Int,
                           _ completion: UnsafePointer<pb_fetch_completion_t>?) {
        guard let completion else { return }
        let answer = CompletionPointer(completion: completion)
        text(json, length) { plugin.didReceiveRemoteNotification(userInfo: $0, completion: FetchCompletion(answer.complete)) }
    }

    /// Runs `body` with the `length` UTF-8 bytes at `bytes` lent as text, unchecked (empty for
    /// NULL): the host passes UTF-8 only (``withTextSpan(_:count:_:)``).
    @inlinable @inline(__always)
    static func text<Result>(_ bytes: UnsafePointer<CChar>?, _ length: Int, _ body: (TextSpan) -> Result) -> Result {
        withTextSpan(UnsafeRawPointer(bytes)?.assumingMemoryBound(to: UInt8.self), count: length, body)
    }
}

/// The host's completion for one notification: valid for the life of the process and answerable
/// from any thread, so it may be shared.
@usableFromInline
struct CompletionPointer: @unchecked Sendable {
    @usableFromInline
    let completion: UnsafePointer<pb_fetch_completion_t>

    @inlinable
    init(completion: UnsafePointer<pb_fetch_completion_t>) {
        self.completion = completion
    }

    /// Answers the host (the host ignores and reports any answer after the first).
    @usableFromInline @Sendable
    func complete(_ result: FetchResult) {
        completion.pointee.complete?(completion, result.abiValue)
    }
}
