import PlugboardWorkerProtocol

/// The decorators' part in each event (``PluginDecorator``), outermost first:
/// authorization names the plugins it kept out before the calls; after them, thread
/// confinement delivers what plugin threads sent, then tracing logs each call.
extension PluginHost {
    /// Logs, once per event, each plugin the policy keeps out of it.
    func logDenials(_ event: LifecycleEvent, _ denied: [PluginID]) {
        guard let policy = accessPolicy else { return }
        let concern = event.concern.rawValue
        for id in denied {
            logHandler(PluginLogRecord(source: HostIdentity.name, plugin: id.rawValue, level: .info,
                                       message: "\(event.callbackName) not delivered: the policy '\(policy.source)' denies \(id) \(concern)"))
        }
    }

    /// Delivers what plugin threads sent during the event, then traces `report`'s calls (`event` gives
    /// their arguments): a trace line follows everything its call did.
    func afterEvent(_ report: EventReport, _ event: () -> WorkerEvent) {
        confinement?.drain()
        tracer?.record(report, event: event)
    }
}
