/// The decorators' part in each event (``PluginDecorator``), outermost first:
/// authorization names the plugins it kept out before the calls; after them, thread
/// confinement delivers what plugin threads sent, then tracing logs each call.
/// Notification deliveries and saved-state calls are decorated the same way, call by call,
/// where they are made (``deliverNotifications()``, ``saveState(to:)``, ``restoreState(from:)``).
extension PluginHost {
    /// Logs, once per event or saved-state operation, each plugin the policy keeps out of its `callback`
    /// (a call of `concern`).
    func logDenials(_ callback: StaticString, _ concern: PluginConcern, _ denied: [PluginID]) {
        guard let policy = accessPolicy else { return }
        for id in denied {
            logHandler(PluginLogRecord(source: HostIdentity.name, plugin: id.rawValue, level: .info,
                                       message: "\(callback) not delivered: the policy '\(policy.source)' denies \(id) \(concern.rawValue)"))
        }
    }

    /// Delivers what plugin threads sent during the event, then traces `report`'s calls with
    /// `event`'s arguments: a trace line follows everything its call did.
    func afterEvent(_ report: EventReport, _ event: LifecycleEvent) {
        confinement?.drain()
        tracer?.record(report) { event }
    }
}
