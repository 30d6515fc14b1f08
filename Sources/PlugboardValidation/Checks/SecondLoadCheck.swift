/// The `second-load` check: the library survives `init` after `deinit` in one process, as a
/// library loaded by hosts in turn meets it.
enum SecondLoadCheck {
    /// The check.
    static let check = ValidationCheck(
        name: "second-load",
        description: "In one worker process, init, register_plugins and deinit run twice in a row: the library, "
            + "still mapped after deinit, loads again and registers the same plugins.") { subject in
        subject.withLoaded { loaded in
            let harness = loaded.harness
            let first = loaded.report.plugins.map(\.descriptor.id.rawValue)
            if case .failure(let failure) = harness.unload(linger: .zero) {
                return ValidationSubject.deinitFailed(failure, which: "the first deinit")
            }
            let again = harness.loadAgain()
            if let failure = again.failure {
                return (loaded.failureStatus, "init after deinit, in the same process, failed: \(failure)")
            }
            let second = again.plugins.map(\.descriptor.id.rawValue)
            guard second == first else {
                return (.fail, "the second register_plugins registered " + second.joined(separator: ", ")
                    + " where the first registered " + first.joined(separator: ", "))
            }
            if case .failure(let failure) = harness.unload(linger: .zero) {
                return ValidationSubject.deinitFailed(failure, which: "the second deinit")
            }
            return (.pass, "init, register_plugins and deinit ran twice in one process")
        }
    }
}
