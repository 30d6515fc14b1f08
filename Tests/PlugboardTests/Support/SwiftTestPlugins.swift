import Foundation
import Synchronization
@testable import Plugboard

/// Records calls in order, from any thread.
final class CallLog: Sendable {
    private let entries = Mutex<[String]>([])

    func record(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// A Swift plugin for every concern, with scripted answers, that records each call as "id event".
struct ScriptedPlugin: LaunchPlugin, OpenURLPlugin, UserActivityPlugin, RemoteNotificationPlugin,
    MemoryWarningPlugin, ProtectedDataPlugin, AppStatePlugin, TerminationPlugin
{
    /// How the plugin answers a remote notification.
    enum FetchBehaviour: Sendable {
        case now(FetchResult)
        case never
        case twice(FetchResult, FetchResult)
        case later(FetchResult, milliseconds: Int)
    }

    let descriptor: PluginDescriptor
    let log: CallLog
    var launchAnswer = true
    var urlAnswer = false
    var activityAnswer = false
    var fetch = FetchBehaviour.now(.noData)

    init(_ id: String, priority: Int32 = 0, log: CallLog) throws {
        descriptor = PluginDescriptor(id: try PluginID(validating: id), priority: priority)
        self.log = log
    }

    private func note(_ event: String) { log.record("\(descriptor.id) \(event)") }

    func willFinishLaunching(options: String) -> Bool { note("will-finish-launching"); return launchAnswer }
    func didFinishLaunching(options: String) -> Bool { note("did-finish-launching"); return launchAnswer }
    func open(url: String, options: String) -> Bool { note("open-url"); return urlAnswer }
    func continueUserActivity(type: String, userInfo: String) -> Bool { note("continue-user-activity"); return activityAnswer }
    func didRegisterForRemoteNotifications(deviceToken: [UInt8]) { note("register-token") }
    func didFailToRegisterForRemoteNotifications(error: String) { note("register-failed") }
    func didReceiveRemoteNotification(userInfo: String, completion: FetchCompletion) {
        note("remote-notification")
        switch fetch {
        case .now(let result): completion(result)
        case .never: break
        case .twice(let first, let second): completion(first); completion(second)
        case .later(let result, let milliseconds):
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
                completion(result)
            }
        }
    }
    func didReceiveMemoryWarning() { note("memory-warning") }
    func protectedDataWillBecomeUnavailable() { note("protected-data-will-become-unavailable") }
    func protectedDataDidBecomeAvailable() { note("protected-data-did-become-available") }
    func didBecomeActive() { note("did-become-active") }
    func willResignActive() { note("will-resign-active") }
    func didEnterBackground() { note("did-enter-background") }
    func willEnterForeground() { note("will-enter-foreground") }
    func willTerminate() { note("will-terminate") }
}

/// A plugin that takes part only in URL opening: the host must not send it anything else.
struct URLOnlyPlugin: OpenURLPlugin {
    let descriptor: PluginDescriptor
    let log: CallLog

    func open(url: String, options: String) -> Bool {
        log.record("\(descriptor.id) open-url \(url)")
        return url.hasPrefix("myapp://")
    }
}
