import CPlugboard

/// The C-ABI adapter: one plugin a library registered, as an ``ApplicationPlugin``,
/// so the dispatcher sees one kind of plugin. It conforms to every concern
/// protocol, but takes part only in the concerns whose vtable the plugin gave.
final class CPlugin: ApplicationPlugin, LaunchPlugin, OpenURLPlugin, UserActivityPlugin,
    RemoteNotificationPlugin, MemoryWarningPlugin, ProtectedDataPlugin, AppStatePlugin, TerminationPlugin
{
    let definition: CPluginDefinition
    let library: LoadedLibrary
    let descriptor: PluginDescriptor
    let concerns: Set<PluginConcern>
    private let ctx: UnsafeMutableRawPointer?

    init(_ definition: CPluginDefinition, from library: LoadedLibrary) {
        self.definition = definition
        self.library = library
        descriptor = definition.descriptor
        concerns = Set(definition.concerns)
        ctx = definition.ctx
    }

    func willFinishLaunching(options: String) -> Bool {
        guard let slot = definition.launch?.will_finish_launching else { return true }
        return options.withCString { slot(ctx, $0, options.utf8.count) }
    }

    func didFinishLaunching(options: String) -> Bool {
        guard let slot = definition.launch?.did_finish_launching else { return true }
        return options.withCString { slot(ctx, $0, options.utf8.count) }
    }

    func open(url: String, options: String) -> Bool {
        guard let slot = definition.openURL?.open_url else { return false }
        return url.withCString { url8 in
            options.withCString { slot(ctx, url8, url.utf8.count, $0, options.utf8.count) }
        }
    }

    func continueUserActivity(type: String, userInfo: String) -> Bool {
        guard let slot = definition.userActivity?.continue_user_activity else { return false }
        return type.withCString { type8 in
            userInfo.withCString { slot(ctx, type8, type.utf8.count, $0, userInfo.utf8.count) }
        }
    }

    func didRegisterForRemoteNotifications(deviceToken: [UInt8]) {
        guard let slot = definition.remoteNotifications?.did_register else { return }
        deviceToken.withUnsafeBufferPointer { slot(ctx, $0.baseAddress, $0.count) }
    }

    func didFailToRegisterForRemoteNotifications(error: String) {
        guard let slot = definition.remoteNotifications?.did_fail_to_register else { return }
        error.withCString { slot(ctx, $0, error.utf8.count) }
    }

    func didReceiveRemoteNotification(userInfo: String, completion: FetchCompletion) {
        guard let slot = definition.remoteNotifications?.did_receive_remote_notification else {
            return completion.abstain()
        }
        let handle = library.completions.handle(for: completion)
        userInfo.withCString { slot(ctx, $0, userInfo.utf8.count, handle) }
    }

    func didReceiveMemoryWarning() {
        definition.memory?.did_receive_memory_warning?(ctx)
    }

    func protectedDataWillBecomeUnavailable() {
        definition.protectedData?.will_become_unavailable?(ctx)
    }

    func protectedDataDidBecomeAvailable() {
        definition.protectedData?.did_become_available?(ctx)
    }

    func didBecomeActive() {
        definition.appState?.did_become_active?(ctx)
    }

    func willResignActive() {
        definition.appState?.will_resign_active?(ctx)
    }

    func didEnterBackground() {
        definition.appState?.did_enter_background?(ctx)
    }

    func willEnterForeground() {
        definition.appState?.will_enter_foreground?(ctx)
    }

    func willTerminate() {
        definition.termination?.will_terminate?(ctx)
    }
}
