import PlugboardWorkerProtocol

/// Remote notifications: every plugin is called and may answer later.
extension EventDispatcher {
    /// Delivers a remote notification and waits on this thread for the reduced answer; see
    /// ``PluginHost/didReceiveRemoteNotification(userInfo:deadline:)``.
    func remoteNotification(userInfo: String, deadline: Duration) -> EventReport {
        registry.startCalls()
        defer { registry.endCalls() }
        let aggregation = remoteNotification(userInfo: userInfo, deadline: deadline) { _ in }
        callSite.decorators.confinement?.wait(until: { aggregation.isFinished })
        return aggregation.waitForReport().with(notifications.deliver(timing: timing))
    }

    /// Delivers a remote notification to every plugin, the reduced answer to `completion`; see
    /// ``PluginHost/didReceiveRemoteNotification(userInfo:deadline:completion:)``.
    func remoteNotification(
        userInfo: String, deadline: Duration, completion: @escaping @Sendable (EventReport) -> Void
    ) -> FetchAggregation {
        let event = LifecycleEvent.remoteNotification(userInfo: EventText(userInfo), deadline: deadline)
        let kind = event.kind
        callSite.prepare(registry)
        let participants = registry.remoteNotifications
        let log = log
        let callSite = callSite
        let aggregation = FetchAggregation(ids: participants.ids, denied: participants.denied, onFinish: { report in
            callSite.reported(report, of: event)
            completion(report)
        }) { id, message in
            log(PluginLogRecord(source: HostIdentity.name, plugin: id.rawValue, level: .warning, message: message))
        }
        let confinement = callSite.decorators.confinement
        registry.startCalls()
        defer { registry.endCalls() }
        _ = event.withCArguments { arguments in
            callSite.callInOrder(kind, participants, reversed: false, timing: timing) { index, participant in
                let answer = aggregation.completion(for: index)
                switch participant {
                case .native(let table, let ctx, let library):
                    let completion = confinement.map { answer.confined(to: $0) } ?? answer
                    let called = event.callSlot(table, ctx: ctx, arguments) {
                        library.takeUnretainedValue().completions.handle(for: completion)
                    }
                    if called == nil { completion.abstain() }
                case .swift(let conformance):
                    let completion = confinement.map { answer.confined(to: $0) } ?? answer
                    if event.callSwift(participants.conformances[conformance], completion: { completion }) == nil {
                        completion.abstain()
                    }
                case .worker(let plugin):
                    let completion = confinement.map { answer.queued(on: $0) } ?? answer
                    let id = participants.ids[index]
                    let called = plugin.call(.event(event), id: id, workers) { reached in
                        let connection = reached.connection.takeUnretainedValue()
                        let request = connection.nextRequestID
                        connection.expectCompletion(of: request, from: reached.index, id: id, completion)
                        aggregation.whenFinished { connection.forgetCompletion(of: request) }
                    }
                    switch called {
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
