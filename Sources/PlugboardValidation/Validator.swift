import Plugboard

/// Runs the validator's checks on one library, each in a worker of its own.
public struct Validator: Sendable {
    /// The `plugboard-worker` executable.
    public let worker: String
    /// How long one plugin call may run before its worker is stopped and the check fails.
    public let callTimeout: Duration
    /// The trust rule each check loads the library under.
    public let trust: PluginTrust

    /// A validator starting workers from `worker`, loading under `trust`.
    public init(worker: String, callTimeout: Duration = .seconds(5), trust: PluginTrust = .strict) {
        self.worker = worker
        self.callTimeout = callTimeout
        self.trust = trust
    }

    /// Runs `checks` on the library at `path`, in order, and returns one result each.
    public func validate(_ path: String, checks: [ValidationCheck] = ValidationCheck.all) -> [CheckResult] {
        let subject = ValidationSubject(path: path, worker: worker, callTimeout: callTimeout, trust: trust)
        let clock = ContinuousClock()
        return checks.map { check in
            let start = clock.now
            let (status, reason) = check.run(subject)
            return CheckResult(check: check.name, status: status, reason: reason,
                               milliseconds: (clock.now - start).milliseconds)
        }
    }
}
