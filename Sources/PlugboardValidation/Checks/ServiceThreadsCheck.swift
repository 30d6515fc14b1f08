import PlugboardWorkerProtocol

/// The `service-threads` check: host services called from the library's own threads are served,
/// and no thread of the library calls the host after its `deinit` returned.
enum ServiceThreadsCheck {
    /// How long the worker watches, after `deinit` returned, for a thread still calling the host.
    static let afterDeinitWatch = Duration.milliseconds(200)

    /// The check.
    static let check = ValidationCheck(
        name: "service-threads",
        description: "Host services called from the library's own threads are served through \(ValidationSubject.Loaded.work), "
            + "and no thread calls the host after deinit returned (watched for \(afterDeinitWatch.text)).") { subject in
        subject.withLoaded { loaded in
            if let failure = loaded.runAtWork().first { return (loaded.failureStatus, failure.message) }
            let census: ServiceCensus
            switch loaded.harness.unload(linger: afterDeinitWatch) {
            case .success(let counted): census = counted
            case .failure(let failure): return ValidationSubject.deinitFailed(failure, which: "deinit")
            }
            guard census.callsAfterDeinit == 0 else {
                return (.fail, "a thread of the library called the host \(census.callsAfterDeinit) time(s) within "
                    + "\(afterDeinitWatch.text) "
                    + "after deinit returned (each ignored): deinit must stop every thread that calls the host")
            }
            guard census.otherThreadCalls > 0 else { return (.pass, "no service call from another thread; none after deinit") }
            return (.pass, "\(census.otherThreadCalls) service call(s) from \(census.otherThreads) other thread(s) answered; "
                + "none after deinit")
        }
    }
}
