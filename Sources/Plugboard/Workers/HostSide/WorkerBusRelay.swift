import PlugboardWorkerProtocol
import Synchronization

/// A worker's notification-bus calls (`post`, `observe`, `stop-observing`), taken on the host's
/// bus. None is answered (the worker answered its plugin already), so a denied post is dropped
/// and a denied observation never made; a frame plugin code forged (a sender that is not one of
/// the worker's registered plugins, a name or payload the bus refuses) ends the worker.
final class WorkerBusRelay: Sendable {
    private let bus: NotificationBus?
    private let gate: ServiceGate
    /// The ids of the worker's plugins the host registered: the only senders and receivers its
    /// posts and observations may name.
    private let admitted = Mutex<Set<String>>([])

    init(bus: NotificationBus?, gate: ServiceGate) {
        self.bus = bus
        self.gate = gate
    }

    /// Makes `plugins` the worker's plugins the host registered (after its load).
    func admit(_ plugins: [PluginID]) {
        admitted.withLock { $0 = Set(plugins.map(\.rawValue)) }
    }

    /// Takes a `post`, `observe` or `stop-observing` of `connection`'s worker; returns why the
    /// worker must end when the frame was forged, else nil.
    func take(_ message: WorkerMessage, from connection: WorkerConnection) -> String? {
        switch message {
        case .post(let plugin, let name, let payload, let depth):
            // The worker checked it; plugin code can write to the channel too, so the host checks again.
            do throws(NotificationRefusal) {
                try NotificationRefusal.check(name: name, call: "post")
                try NotificationRefusal.check(payload: payload, name: name)
            } catch {
                return "it sent a post the bus refuses: \(error)"
            }
            if let forged = forgery(plugin, "post") { return forged }
            guard gate.refusal(.post) == nil else { return nil }
            // Queued before the reader takes the answer of the call the post was made in: never reordered after it.
            // A full queue drops it: the worker's plugin was answered PB_OK already (see notifications.h).
            bus?.post(name, payload: payload, sender: plugin, depth: Int(depth))
        case .observe(let token, let plugin, let name):
            do throws(NotificationRefusal) {
                try NotificationRefusal.check(name: name, call: "observe")
            } catch {
                return "it sent an observe the bus refuses: \(error)"
            }
            if let forged = forgery(plugin, "observe") { return forged }
            guard gate.refusal(.observe) == nil else { return nil }
            // Past the limit (the worker's own bus refuses that first; only a forged frame gets here)
            // the observation is not made.
            _ = bus?.observe(name, receiver: plugin, owner: ObjectIdentifier(connection), .worker(connection, token: token))
        case .stopObserving(let token):
            bus?.stopWorkerObserving(token, owner: ObjectIdentifier(connection))
        default:
            break
        }
        return nil
    }

    /// Why a `call` naming `plugin` is forged (not one of the worker's registered plugins), or nil.
    private func forgery(_ plugin: String, _ call: String) -> String? {
        admitted.withLock { $0.contains(plugin) } ? nil
            : "it sent a \(call) on behalf of '\(plugin)', which is not one of its plugins the host registered"
    }
}
