/// The `quiet-stdout` check: plugin code leaves standard output, the host's, alone.
enum QuietStdoutCheck {
    /// The check.
    static let check = ValidationCheck(
        name: "quiet-stdout",
        description: "Plugin code writes nothing to standard output (it belongs to the host) through "
            + "\(ValidationSubject.Loaded.work).") { subject in
        subject.withLoaded { loaded in
            if let failure = loaded.runAtWork().first { return (loaded.failureStatus, failure.message) }
            loaded.host.shutdown()
            if let line = loaded.standardOutput.first {
                return (.fail, "plugin code wrote \(loaded.standardOutput.count) line(s) to standard output, "
                    + "the first: \(line.debugDescription)")
            }
            return (.pass, "nothing written to standard output")
        }
    }
}
