/// One check of the validator: a name, what it asks of a library, and how it is run.
/// Each check is a file of its own under Checks/, its description made from its own constants.
public struct ValidationCheck: Sendable {
    /// The kebab-case name used by `--include` and `--exclude`.
    public let name: String
    /// One sentence: what the check asks of a library.
    public let description: String
    /// Runs the check on the library at the path; each run starts its own worker.
    let run: @Sendable (ValidationSubject) -> (CheckResult.Status, String)

    /// Every check, in the order they run.
    public static let all: [ValidationCheck] = [
        LoadsCheck.check, ExportsCheck.check, PluginIDsCheck.check, FunctionsCheck.check, LoadTimeCheck.check,
        SecondLoadCheck.check, EdgeInputsCheck.check, RemoteNotificationCheck.check, ServiceThreadsCheck.check,
        QuietStdoutCheck.check, SavedStateCheck.check, NotificationsCheck.check, SandboxCheck.check,
    ]
}
