import PlugboardWorkerProtocol

/// Remote notifications: every plugin is called and may answer later.
extension PluginHost {
    /// Delivers a notification to every plugin; `completion` receives the reduced
    /// answer (new data > no data > failed; no data with no plugins) exactly once,
    /// when all answered or `deadline` after the call, on whichever thread that happens.
    /// Notifications posted meanwhile are delivered at the next event or ``deliverNotifications()``.
    public func didReceiveRemoteNotification(
        userInfo: String, deadline: Duration = .seconds(30),
        completion: @escaping @Sendable (EventReport) -> Void
    ) {
        _ = dispatchRemoteNotification(userInfo: userInfo, deadline: deadline, completion: completion)
    }

    /// Delivers a notification and waits on this thread for the reduced answer
    /// (at most `deadline`). A plugin that answers on this same thread later
    /// than its callback cannot answer in time. Then delivers the notifications posted meanwhile.
    @discardableResult
    public func didReceiveRemoteNotification(userInfo: String, deadline: Duration = .seconds(30)) -> EventReport {
        var report = dispatchRemoteNotification(userInfo: userInfo, deadline: deadline) { _ in }.waitForReport()
        report.notifications = deliverNotifications()
        return report
    }

    private func dispatchRemoteNotification(
        userInfo: String, deadline: Duration, completion: @escaping @Sendable (EventReport) -> Void
    ) -> FetchAggregation {
        let participants = prepared.remoteNotifications
        let log = logHandler
        let aggregation = FetchAggregation(ids: participants.ids, onFinish: completion) { id, message in
            log(PluginLogRecord(source: HostIdentity.name, plugin: id.rawValue, level: .warning, message: message))
        }
        _ = userInfo.withCString { userInfo8 in
            let length = userInfo.utf8.count
            return callInOrder(.remoteNotification, participants, reversed: false) { index, participant in
                let completion = aggregation.completion(for: index)
                switch participant {
                case .native(let table, let ctx, let library):
                    guard let slot = table.did_receive_remote_notification else {
                        completion.abstain()
                        return true
                    }
                    slot(ctx, userInfo8, length, library.takeUnretainedValue().completions.handle(for: completion))
                case .swift(let index):
                    participants.conformances[index].didReceiveRemoteNotification(userInfo: userInfo, completion: completion)
                case .worker(let plugin):
                    let connection = plugin.connection.takeUnretainedValue()
                    connection.expectCompletion(of: connection.nextRequestID, completion)
                    let milliseconds = UInt32(clamping: deadline.nanoseconds / 1_000_000)
                    switch callWorker(plugin, .remoteNotification(userInfoJSON: Array(userInfo.utf8), deadlineMilliseconds: milliseconds),
                                      event: .remoteNotification, id: participants.ids[index]) {
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
        aggregation.expire(after: deadline)
        return aggregation
    }
}
