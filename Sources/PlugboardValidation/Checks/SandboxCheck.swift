import Plugboard

/// The `sandbox` check: the library loads and works under the default sandbox, and its code
/// attempts nothing the sandbox refuses (each refused system call is reported by the host).
enum SandboxCheck {
    /// The check.
    static let check = ValidationCheck(
        name: "sandbox",
        description: "The library loads and answers \(ValidationSubject.Loaded.work) under the default sandbox "
            + "(no grant), and its code attempts no system call the sandbox refuses.") { subject in
        subject.withLoaded { loaded in
            if let failure = loaded.runAtWork().first { return (loaded.failureStatus, failure.message) }
            loaded.host.shutdown()
            let denials = loaded.hostWarnings.map(\.message).filter { $0.hasPrefix(SandboxDenial.logPrefix) }
            if let first = denials.first {
                return (.fail, "\(denials.count) kind(s) of operation refused, the first: "
                    + first.dropFirst(SandboxDenial.logPrefix.count))
            }
            return (.pass, "loaded and answered under \(SandboxSupport.kernel); nothing refused")
        }
    }
}
