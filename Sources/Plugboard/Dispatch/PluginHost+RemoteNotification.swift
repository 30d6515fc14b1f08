import PlugboardWorkerProtocol

/// Remote notifications: every plugin is called and may answer later.
extension PluginHost {
    /// Delivers a notification to every plugin; `completion` receives the reduced
    /// answer (new data > no data > failed; no data with no plugins) exactly once,
    /// when all answered or `deadline` after the call, on whichever thread that happens
    /// (with ``PluginDecorator/threadConfinement``, on the dispatch thread, when
    /// ``deliverConfined()`` or a later event delivers the answers).
    /// Notifications posted meanwhile are delivered at the next event or ``deliverNotifications()``.
    public func didReceiveRemoteNotification(
        userInfo: String, deadline: Duration = .seconds(30),
        completion: @escaping @Sendable (EventReport) -> Void
    ) {
        _ = dispatchRemoteNotification(userInfo: userInfo, deadline: deadline, completion: completion)
    }

    /// Delivers a notification and waits on this thread for the reduced answer
    /// (at most `deadline`). A plugin that answers on this same thread later
    /// than its callback cannot answer in time. With ``PluginDecorator/threadConfinement``
    /// the wait delivers what plugin threads send as it arrives, on this thread. Then delivers
    /// the notifications posted meanwhile.
    @discardableResult
    public func didReceiveRemoteNotification(userInfo: String, deadline: Duration = .seconds(30)) -> EventReport {
        let aggregation = dispatchRemoteNotification(userInfo: userInfo, deadline: deadline) { _ in }
        confinement?.wait(until: { aggregation.isFinished })
        var report = aggregation.waitForReport()
        report.notifications = deliverNotifications()
        return report
    }

    private func dispatchRemoteNotification(
        userInfo: String, deadline: Duration, completion: @escaping @Sendable (EventReport) -> Void
    ) -> FetchAggregation {
        let event = LifecycleEvent.remoteNotification(userInfo: EventText(userInfo), deadline: deadline)
        let kind = event.kind
        let participants = prepared.remoteNotifications
        let log = logHandler
        let callSite = callSite
        let aggregation = FetchAggregation(ids: participants.ids, denied: participants.denied, onFinish: { report in
            callSite.reported(report, of: event)
            completion(report)
        }) { id, message in
            log(PluginLogRecord(source: HostIdentity.name, plugin: id.rawValue, level: .warning, message: message))
        }
        let confinement = confinement
        _ = event.withCArguments { arguments in
            callSite.callInOrder(kind, participants, reversed: false, timing: timing) { index, participant in
                let completion = confinement.map { aggregation.completion(for: index).confined(to: $0) }
                    ?? aggregation.completion(for: index)
                switch participant {
                case .native(let table, let ctx, let library):
                    let called = event.callSlot(table, ctx: ctx, arguments) {
                        library.takeUnretainedValue().completions.handle(for: completion)
                    }
                    if called == nil { completion.abstain() }
                case .swift(let conformance):
                    if event.callSwift(participants.conformances[conformance], completion: { completion }) == nil {
                        completion.abstain()
                    }
                case .worker(let plugin):
                    let connection = plugin.connection.takeUnretainedValue()
                    let request = connection.nextRequestID
                    connection.expectCompletion(of: request, from: plugin.index, id: participants.ids[index], completion)
                    aggregation.whenFinished { connection.forgetCompletion(of: request) }
                    switch plugin.call(.event(event), id: participants.ids[index], workers) {
                    case .success(.pending): break
                    case .success: completion.abstain()
                    case .failure(let failure):
                        completion.reject(failure.message)
                        completion.abstain()
                    }
                }
                return true
            }
        }
        aggregation.expire(after: deadline, through: confinement)
        return aggregation
    }
}
