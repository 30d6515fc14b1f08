/// Runs the validator's checks on one library, each in a worker of its own.
public struct Validator: Sendable {
    /// The `plugboard-worker` executable.
    public let worker: String
    /// How long one plugin call may run before its worker is stopped and the check fails.
    public let callTimeout: Duration

    /// A validator starting workers from `worker`.
    public init(worker: String, callTimeout: Duration = .seconds(5)) {
        self.worker = worker
        self.callTimeout = callTimeout
    }

    /// Runs `checks` on the library at `path`, in order, and returns one result each.
    public func validate(_ path: String, checks: [ValidationCheck] = ValidationCheck.all) -> [CheckResult] {
        let subject = ValidationSubject(path: path, worker: worker, callTimeout: callTimeout)
        let clock = ContinuousClock()
        return checks.map { check in
            let start = clock.now
            let (status, reason) = check.run(subject)
            return CheckResult(check: check.name, status: status, reason: reason,
                               milliseconds: (clock.now - start).milliseconds)
        }
    }
}
