import CFaultReporter
import CPlugboard
import PlugboardWorkerProtocol

/// The host's side of the notification bus: takes the embedding API's posts and observations,
/// and delivers what is queued to the observers, on the dispatch thread, in dispatch order,
/// each delivery one plugin call through the call site (to an observer in a worker, through
/// its channel).
final class NotificationDeliverer {
    /// The observers and the queue.
    let bus: NotificationBus
    private let registry: PluginRegistry
    private let callSite: PluginCallSite
    private let workers: WorkerSupervisor
    /// The observers' order for the registry generation it was made for (see ``observerRanks``).
    private var cachedObserverRanks: (generation: Int, ranks: [String: ObserverRank])?

    /// A deliverer of `bus`'s notifications to the observers of `registry`'s plugins, called
    /// through `callSite` and, in workers, `workers`.
    init(bus: NotificationBus, registry: PluginRegistry, callSite: PluginCallSite, workers: WorkerSupervisor) {
        self.bus = bus
        self.registry = registry
        self.callSite = callSite
        self.workers = workers
    }

    /// Queues `name` with `payload` from the host; see ``PluginHost/post(_:payload:)``.
    func post(_ name: String, payload: String) throws(NotificationRefusal) {
        try NotificationRefusal.check(name: name, call: "post")
        try NotificationRefusal.check(payload: payload, name: name)
        guard bus.post(name, payload: payload, sender: NotificationBus.hostSender) else {
            throw NotificationRefusal(PB_ERR_UNAVAILABLE, "post \(name): \(NotificationBus.queueLimit) notifications wait for delivery already")
        }
    }

    /// Has `observer` called for `name`; see ``PluginHost/observe(_:_:)``.
    func observe(_ name: String,
                 _ observer: @escaping @Sendable (PluginNotification) -> Void) throws(NotificationRefusal) -> NotificationToken {
        try NotificationRefusal.check(name: name, call: "observe")
        // The embedding API has no observation limit: nil cannot come back for it.
        guard let token = bus.observe(name, receiver: NotificationBus.hostSender, owner: nil, .swift(observer)) else {
            throw NotificationRefusal(PB_ERR_UNAVAILABLE, "observe \(name): the bus refused the observation")
        }
        return NotificationToken(value: token)
    }

    /// Ends an observation of the embedding API, if it has not ended.
    func stopObserving(_ token: NotificationToken) {
        _ = bus.stopObserving(token.value, owner: nil)
    }

    /// Whether anything was posted since the last delivery (one atomic load).
    var hasPending: Bool { bus.hasPending }

    /// Delivers every queued notification now, and those the observers post meanwhile, timing each
    /// delivery as `timing` says; see ``PluginHost/deliverNotifications()``.
    func deliver(timing: CallTiming) -> NotificationReport {
        guard bus.hasPending else { return NotificationReport() }
        let ranks = observerRanks
        registry.startCalls()
        defer { registry.endCalls() }
        let callSite = callSite
        let workers = workers
        return bus.drain { receiver in
            receiver == NotificationBus.hostSender ? Int.max : ranks[receiver]?.rank
        } interrupted: {
            workers.interruption()
        } deliver: { observer, notification, depth in
            var label: UnsafePointer<pbf_label_t>?
            if case .native = observer.callback { label = ranks[observer.receiver]?.label }
            let plugin = observer.receiver == NotificationBus.hostSender ? nil : PluginID(unchecked: observer.receiver)
            let (failure, nanoseconds) = callSite.call(.observer(timing, label: label), of: plugin,
                                                       traced: { CallTracer.call(notification) },
                                                       answer: { CallTracer.delivery(failure: $0) }) { () -> String? in
                switch observer.callback {
                case .native(let callback, let ctx):
                    NotificationBus.call(callback, ctx, notification)
                    return nil
                case .swift(let callback):
                    callback(notification)
                    return nil
                case .worker(let connection, let token):
                    return deliver(notification, depth: depth, to: connection, token: token, receiver: observer.receiver)
                }
            }
            return (nanoseconds, failure)
        }
    }

    /// Each registered plugin's place in dispatch order and its label, by id: the observers' order.
    /// Made again only after the registrations changed.
    private var observerRanks: [String: ObserverRank] {
        callSite.prepare(registry)
        if let cached = cachedObserverRanks, cached.generation == registry.generation { return cached.ranks }
        var ranks: [String: ObserverRank] = [:]
        for (rank, entry) in registry.entries.enumerated() { ranks[entry.descriptor.id.rawValue] = ObserverRank(rank: rank, label: entry.label) }
        cachedObserverRanks = (registry.generation, ranks)
        return ranks
    }

    /// Asks `connection`'s worker to call its observer `token`, through the host's ``WorkerSupervisor``;
    /// a worker that fails is reported as for any call. Returns the failure's sentence, if any.
    private func deliver(_ notification: PluginNotification, depth: Int, to connection: WorkerConnection, token: UInt64,
                         receiver: String) -> String? {
        let message = WorkerMessage.deliver(token: token, name: notification.name, payload: notification.payload,
                                            sender: notification.sender, depth: UInt32(clamping: depth))
        let delivered = workers.request(message, to: connection, purpose: "deliver", who: receiver,
                                        callback: PluginCallKind.observerCallback.description) { reply in
            if case .delivered = reply { () } else { nil }
        }
        guard case .failure(let failure) = delivered else { return nil }
        return failure.message
    }
}
