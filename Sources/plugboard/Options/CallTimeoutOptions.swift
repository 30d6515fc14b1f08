import ArgumentParser

/// `--call-timeout`: how long one plugin call may run before the host says so.
struct CallTimeoutOptions: ParsableArguments {
    @Option(name: .customLong("call-timeout"),
            help: ArgumentHelp(
                "Seconds one plugin call may take. In a worker the call is then named and its worker killed; in process (run --isolation none) it is named but cannot be stopped: the host waits. 0 turns it off.",
                valueName: "seconds"))
    var seconds: Double = 10

    /// The timeout for the host; nil when turned off.
    var timeout: Duration? {
        seconds == 0 ? nil : .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    func validate() throws {
        guard seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
            throw ValidationError("--call-timeout must be a number of seconds from 0 (off) to 86400, got \(seconds)")
        }
    }
}
