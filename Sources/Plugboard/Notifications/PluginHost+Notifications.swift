import CFaultReporter
import CPlugboard
import PlugboardWorkerProtocol

/// The notification bus in the embedding API: post, observe with a callback, and
/// deliver what is queued.
///
/// Observers are callbacks, not an `AsyncSequence`: a delivery is a plugin call like
/// any other, made synchronously on the dispatch thread, one at a time, in a
/// documented order, and timed for the report; a sequence would hand the
/// notification to another task, whose timing and order the host cannot promise.
extension PluginHost {
    /// Queues the notification `name` (reverse-DNS) with `payload` (JSON object text),
    /// sent by the host ("plugboard"). Any thread. It is delivered on the dispatch thread
    /// after the next event's calls, or at ``deliverNotifications()``.
    public func post(_ name: String, payload: String = "{}") throws(NotificationRefusal) {
        try NotificationRefusal.check(name: name, call: "post")
        try NotificationRefusal.check(payload: payload, name: name)
        guard notifications.post(name, payload: payload, sender: NotificationBus.hostSender) else {
            throw NotificationRefusal(PB_ERR_UNAVAILABLE, "post \(name): \(NotificationBus.queueLimit) notifications wait for delivery already")
        }
    }

    /// Calls `observer` on the dispatch thread for every notification named `name`, after
    /// every plugin that observes it (the receiver is reported as "plugboard"), until
    /// ``stopObserving(_:)``.
    public func observe(_ name: String,
                        _ observer: @escaping @Sendable (PluginNotification) -> Void) throws(NotificationRefusal) -> NotificationToken {
        try NotificationRefusal.check(name: name, call: "observe")
        // The embedding API has no observation limit: nil cannot come back for it.
        guard let token = notifications.observe(name, receiver: NotificationBus.hostSender, owner: nil, .swift(observer)) else {
            throw NotificationRefusal(PB_ERR_UNAVAILABLE, "observe \(name): the bus refused the observation")
        }
        return NotificationToken(value: token)
    }

    /// Ends an observation ``observe(_:_:)`` made; nothing happens for one already ended.
    public func stopObserving(_ token: NotificationToken) {
        _ = notifications.stopObserving(token.value, owner: nil)
    }

    /// Delivers every queued notification now, on this thread (the dispatch thread), and
    /// those the observers post meanwhile, and reports each delivery. Every event does
    /// this after its calls returned; call it to deliver what plugin threads posted between events.
    /// Each delivery is one plugin call of the call site's per-call form: under
    /// ``PluginDecorator/threadConfinement`` what plugin threads sent meanwhile is delivered after
    /// it, then ``PluginDecorator/tracing(_:)`` logs it when the receiver is traced.
    @discardableResult
    public func deliverNotifications() -> NotificationReport {
        guard notifications.hasPending else { return NotificationReport() }
        let ranks = observerRanks
        let timing = timing
        let callSite = callSite
        return notifications.drain { receiver in
            receiver == NotificationBus.hostSender ? Int.max : ranks[receiver]?.rank
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
        let registry = prepared
        if let cached = cachedObserverRanks, cached.generation == registry.generation { return cached.ranks }
        var ranks: [String: ObserverRank] = [:]
        for (rank, entry) in registry.entries.enumerated() { ranks[entry.descriptor.id.rawValue] = ObserverRank(rank: rank, label: entry.label) }
        cachedObserverRanks = (registry.generation, ranks)
        return ranks
    }

    /// Asks `connection`'s worker to call its observer `token`, waiting at most the call timeout;
    /// a worker that fails is reported as for any call. Returns the failure's sentence, if any.
    private func deliver(_ notification: PluginNotification, depth: Int, to connection: WorkerConnection, token: UInt64,
                         receiver: String) -> String? {
        let message = WorkerMessage.deliver(token: token, name: notification.name, payload: notification.payload,
                                            sender: notification.sender, depth: UInt32(clamping: depth))
        let ending: WorkerEnding
        switch connection.request(message, timeout: workers.callTimeout, interrupted: workers.interruption) {
        case .success(.delivered): return nil
        case .success(let other): ending = connection.abandon("it answered \(other.kind) to deliver")
        case .failure(let failed): ending = failed
        }
        return workers.failed(connection, ending, who: receiver, callback: PluginCallKind.observerCallback.description).message
    }
}
