/// The notification bus in the embedding API (``NotificationDeliverer``): post, observe with a
/// callback, and deliver what is queued.
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
        try notifications.post(name, payload: payload)
    }

    /// Calls `observer` on the dispatch thread for every notification named `name`, after
    /// every plugin that observes it (the receiver is reported as "plugboard"), until
    /// ``stopObserving(_:)``. It runs inside a delivery: an event sent to the host from there would
    /// run inside the one being delivered (and the host is not `Sendable`, so the closure cannot
    /// hold it); it notes what to do (in a `Mutex`, say) for the application to do after the event.
    public func observe(_ name: String,
                        _ observer: @escaping @Sendable (PluginNotification) -> Void) throws(NotificationRefusal) -> NotificationToken {
        try notifications.observe(name, observer)
    }

    /// Ends an observation ``observe(_:_:)`` made; nothing happens for one already ended.
    public func stopObserving(_ token: NotificationToken) {
        notifications.stopObserving(token)
    }

    /// Delivers every queued notification now, on this thread (the dispatch thread), and
    /// those the observers post meanwhile, and reports each delivery. Every event does
    /// this after its calls returned; call it to deliver what plugin threads posted between events.
    /// Each delivery is one plugin call of the call site's per-call form: under
    /// ``PluginDecorator/threadConfinement`` what plugin threads sent meanwhile is delivered after
    /// it, then ``PluginDecorator/tracing(_:)`` logs it when the receiver is traced.
    @discardableResult
    public func deliverNotifications() -> NotificationReport {
        notifications.deliver(timing: timing)
    }
}
