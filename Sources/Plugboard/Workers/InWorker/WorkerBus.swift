import PlugboardWorkerProtocol

/// A worker's notification bus: what its plugins post and observe goes to the host over the
/// channel, and the host's bus delivers, asking the worker with `deliver` to call each observer here.
struct WorkerBus {
    /// The bus the worker's libraries post to and observe.
    let bus = NotificationBus()
    /// The worker's plugins, for the label a call to one of them is recorded under.
    private let registry: PluginRegistry
    /// How the worker calls plugin code.
    private let callSite: PluginCallSite

    /// A bus that relays over `channel`, calling observers through `callSite`.
    init(channel: WorkerChannel, registry: PluginRegistry, callSite: PluginCallSite) {
        self.registry = registry
        self.callSite = callSite
        bus.relay(to: NotificationRelay(
            post: { sender, name, payload, depth in
                try? channel.send(.post(pluginID: sender, name: name, payload: payload, depth: UInt32(clamping: depth)))
            },
            observed: { token, receiver, name in try? channel.send(.observe(token: token, pluginID: receiver, name: name)) },
            stopped: { token in try? channel.send(.stopObserving(token: token)) }))
    }

    /// Calls the observer `token` for a notification the host relayed (`deliver`), `depth` deep.
    /// Not timed: the host times the delivery, channel included.
    func deliver(_ notification: PluginNotification, to token: UInt64, depth: Int) {
        bus.deliver(notification, to: token, depth: depth) { observer in
            guard case .native(let callback, let ctx) = observer.callback else { return }
            let plugin = PluginID(unchecked: observer.receiver)
            _ = callSite.call(.observer(.perEvent, label: registry.entry(plugin)?.label), of: plugin,
                              traced: { CallTracer.call(notification) }, answer: { CallTracer.delivery(failure: $0) }) {
                NotificationBus.call(callback, ctx, notification)
                return nil as String?
            }
        }
    }
}
