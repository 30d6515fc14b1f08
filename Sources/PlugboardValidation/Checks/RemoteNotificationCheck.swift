import Plugboard

/// The `remote-notification` check: every plugin taking part answers each remote notification's
/// completion exactly once, in time.
enum RemoteNotificationCheck {
    /// How long the host waits for the completions of one notification.
    static let deadline = Duration.seconds(2)
    /// How many notifications are sent, one after the other: at least 2, as the second one's round
    /// trip also brings in a second answer to the first.
    static let notifications = 2

    /// The check.
    static let check = ValidationCheck(
        name: "remote-notification",
        description: "Every plugin that takes part in remote notifications answers the completion exactly once, "
            + "within a \(deadline.text) deadline, for each of \(notifications) notifications in a row.") { subject in
        subject.withLoaded { loaded in
            let takingPart = loaded.report.plugins.filter { $0.concerns.contains(.remoteNotifications) }
            guard !takingPart.isEmpty else { return (.skipped, "no plugin takes part in remote notifications") }
            for _ in 1...notifications {
                let report = loaded.host.didReceiveRemoteNotification(userInfo: "{}", deadline: deadline)
                if let failure = report.failures.first { return (loaded.failureStatus, failure.message) }
                let silent = report.calls.filter { $0.answer == .timedOut }.map(\.plugin.rawValue)
                if !silent.isEmpty {
                    return (.fail, silent.joined(separator: ", ") + " did not answer the completion within \(deadline.text)")
                }
                if let note = report.notes.first { return (.fail, note) }
            }
            if let warning = loaded.hostWarnings.first(where: { $0.plugin != nil }) {
                return (.fail, "\(warning.plugin ?? "") \(warning.message)")
            }
            return (.pass, "\(takingPart.count) plugin(s) answered each notification once within the deadline")
        }
    }
}
