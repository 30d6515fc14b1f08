/// The `load-time` check: the library loads quickly.
enum LoadTimeCheck {
    /// A load that takes longer is worth a warning.
    static let limit = Duration.milliseconds(100)

    /// The check.
    static let check = ValidationCheck(
        name: "load-time",
        description: "Loading (dlopen, entry, init, register) takes at most \(limit.text).") { subject in
        subject.withLoaded { loaded in
            let took = "loading took \(Int(loaded.milliseconds.rounded())) ms"
            return loaded.harness.loadDuration > limit ? (.warn, took + ", more than \(limit.text)") : (.pass, took)
        }
    }
}
