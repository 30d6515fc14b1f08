import ArgumentParser

/// Why `plugboard call` could not print a result: the sentence and the exit code, which
/// `--json` prints as `{"error": "…", "exitCode": N}`.
struct CallFailure: Error, Encodable {
    /// The sentence: what could not be done, and why.
    let error: String
    /// The exit code `plugboard call` ends with.
    let exitCode: Int32

    init(_ error: String, _ code: ExitCode) {
        self.error = error
        exitCode = code.rawValue
    }
}
