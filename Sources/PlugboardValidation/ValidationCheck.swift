import Plugboard
/// One check of the validator: a name, what it asks of a library, and how it is run.
public struct ValidationCheck: Sendable {
    /// The kebab-case name used by `--include` and `--exclude`.
    public let name: String
    /// One sentence: what the check asks of a library.
    public let description: String
    /// Runs the check on the library at the path; each run starts its own worker.
    let run: @Sendable (ValidationSubject) -> (CheckResult.Status, String)
}
