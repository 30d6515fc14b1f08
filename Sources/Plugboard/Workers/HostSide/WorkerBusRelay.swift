import PlugboardWorkerProtocol
import Synchronization

/// A worker's notification-bus calls (`post`, `observe`, `stop-observing`), taken on the host's
/// bus. None is answered (the worker answered its plugin already), so a denied post is dropped
/// and a denied observation never made; a frame plugin code forged (a sender that is not one of
/// the worker's registered plugins, a name or payload the bus refuses) ends the worker. The calls
/// a plugin thread makes once its library registered in the worker, before the host registered
/// it, wait for that (``admit(_:of:)``), in order.
final class WorkerBusRelay: Sendable {
    private let bus: NotificationBus?
    private let gate: ServiceGate

    private struct State {
        /// The ids of the worker's plugins the host registered: the only senders and receivers
        /// its posts and observations may name; nil until the host registered its library.
        var admitted: Set<String>?
        /// The calls that came before that, in order.
        var held: [WorkerMessage] = []
        /// The bytes of text the held calls keep.
        var heldBytes = 0
        /// Whether the worker was closed: its calls from then on are dropped.
        var closed = false
    }

    /// The most bytes of text (names and payloads) the calls held for one worker keep: past it, as
    /// past the bus's queue limit, a call is dropped.
    static let heldBytesLimit = 4 << 20

    /// Every call is taken under it, so that none overtakes another.
    private let state = Mutex(State())

    init(bus: NotificationBus?, gate: ServiceGate) {
        self.bus = bus
        self.gate = gate
    }

    /// Makes `plugins` the worker's plugins the host registered (after its load), and takes the
    /// calls of `connection`'s worker that waited for it; returns why the worker must end when one
    /// was forged, else nil.
    func admit(_ plugins: [PluginID], of connection: WorkerConnection) -> String? {
        state.withLock { state in
            state.admitted = Set(plugins.map(\.rawValue))
            let held = state.held
            state.held = []
            state.heldBytes = 0
            for message in held {
                if let forged = relay(message, of: connection, admitted: state.admitted ?? []) { return forged }
            }
            return nil
        }
    }

    /// Takes a `post`, `observe` or `stop-observing` of the worker; returns why the worker must
    /// end when the frame was forged, else nil. With no bus (a scan's worker) every call is dropped,
    /// as are the calls past the queue's limit, or ``heldBytesLimit``, before its library was
    /// registered (the bus would refuse such posts; the worker answered its plugin already). A name
    /// or payload the bus refuses ends the worker at once, held or not.
    func take(_ message: WorkerMessage, from connection: WorkerConnection) -> String? {
        guard bus != nil else { return nil }
        if let refused = Self.refusal(of: message) { return refused }
        return state.withLock { state in
            guard !state.closed else { return nil }
            guard let admitted = state.admitted else {
                let bytes = Self.textBytes(of: message)
                if state.held.count < NotificationBus.queueLimit, state.heldBytes + bytes <= Self.heldBytesLimit {
                    state.held.append(message)
                    state.heldBytes += bytes
                }
                return nil
            }
            return relay(message, of: connection, admitted: admitted)
        }
    }

    /// `connection`'s worker was closed: its observations end, those its plugins' `deinit` made as it
    /// closed included, and its calls from now on are dropped. (An observation left behind would
    /// reach a closed worker, whose failure withdraws the plugins of its path: a new version's.)
    func close(_ connection: WorkerConnection) {
        state.withLock { state in
            state.closed = true
            state.held = []
            state.heldBytes = 0
            bus?.removeObservers(of: ObjectIdentifier(connection))
        }
    }

    /// Why the bus refuses `message` from any sender (a name or a payload it takes from none), or
    /// nil. The worker checked it; plugin code can write to the channel too, so the host checks again.
    private static func refusal(of message: WorkerMessage) -> String? {
        do throws(NotificationRefusal) {
            switch message {
            case .post(_, let name, let payload, _):
                try NotificationRefusal.check(name: name, call: "post")
                try NotificationRefusal.check(payload: payload, name: name)
            case .observe(_, _, let name):
                try NotificationRefusal.check(name: name, call: "observe")
            default:
                break
            }
            return nil
        } catch {
            let call = if case .post = message { "a post" } else { "an observe" }
            return "it sent \(call) the bus refuses: \(error)"
        }
    }

    /// The bytes of text `message` keeps while it is held.
    private static func textBytes(of message: WorkerMessage) -> Int {
        switch message {
        case .post(let plugin, let name, let payload, _): plugin.utf8.count + name.utf8.count + payload.utf8.count
        case .observe(_, let plugin, let name): plugin.utf8.count + name.utf8.count
        default: 0
        }
    }

    /// Relays one call of `connection`'s worker, whose `admitted` plugins are known and which the bus
    /// does not refuse (``refusal(of:)``), to the host's bus.
    private func relay(_ message: WorkerMessage, of connection: WorkerConnection, admitted: Set<String>) -> String? {
        let owner = ObjectIdentifier(connection)
        switch message {
        case .post(let plugin, let name, let payload, let depth):
            if let forged = Self.forgery(plugin, "post", admitted) { return forged }
            guard gate.refusal(.post) == nil else { return nil }
            // Queued before the reader takes the answer of the call the post was made in: never reordered after it.
            // A full queue drops it: the worker's plugin was answered PB_OK already (see notifications.h).
            bus?.post(name, payload: payload, sender: plugin, depth: Int(depth))
        case .observe(let token, let plugin, let name):
            if let forged = Self.forgery(plugin, "observe", admitted) { return forged }
            guard gate.refusal(.observe) == nil else { return nil }
            // Past the limit (the worker's own bus refuses that first; only a forged frame gets here)
            // the observation is not made.
            _ = bus?.observe(name, receiver: plugin, owner: owner, .worker(connection, token: token))
        case .stopObserving(let token):
            bus?.stopWorkerObserving(token, owner: owner)
        default:
            break
        }
        return nil
    }

    /// Why a `call` naming `plugin` is forged (not one of the worker's `admitted` plugins), or nil.
    private static func forgery(_ plugin: String, _ call: String, _ admitted: Set<String>) -> String? {
        admitted.contains(plugin) ? nil
            : "it sent a \(call) on behalf of '\(plugin)', which is not one of its plugins the host registered"
    }
}
