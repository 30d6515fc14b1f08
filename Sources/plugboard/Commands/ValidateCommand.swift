import ArgumentParser
import PlugboardValidation

/// `plugboard validate FILE.so…`: checks libraries the way a host will use them, for plugin authors.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check plugin libraries for defects, each check in a worker of its own.",
        discussion: """
            Runs each check on each library in a fresh plugin worker, so plugin code that \
            crashes ends only that check (status crashed, with the signal and the callback) \
            and the validator carries on. Statuses: pass, warn, fail, crashed, skipped (the \
            library does not load); each with a reason and its duration. --list prints the \
            checks with what each asks.

            Exit status: 0 when no check failed or crashed (warnings allowed), 1 when one \
            did, 64 for a usage error.
            """)

    @Argument(help: ArgumentHelp("The plugin libraries to check.", valueName: "file.so"))
    var files: [String] = []

    @Flag(help: "Print the checks, one a line with its description, and exit.")
    var list = false

    @Flag(name: .customLong("only-failed"), help: "Show only the checks that failed or crashed.")
    var onlyFailed = false

    @Option(name: .customLong("include"), help: ArgumentHelp("Run only this check (repeatable).", valueName: "check"))
    var included: [String] = []

    @Option(name: .customLong("exclude"), help: ArgumentHelp("Do not run this check (repeatable).", valueName: "check"))
    var excluded: [String] = []

    @OptionGroup var trust: TrustOptions
    @OptionGroup var callTimeout: CallTimeoutOptions
    @OptionGroup var output: OutputOptions

    /// One library's results in the `--json` document.
    struct LibraryResults: Encodable {
        let library: String
        let checks: [CheckResult]
    }

    func validate() throws {
        if !list && files.isEmpty { throw ValidationError("name at least one library to validate") }
        if files.contains("") { throw ValidationError("a library path is empty") }
        if callTimeout.timeout == nil { throw ValidationError("validate needs a --call-timeout above 0 to catch a plugin that hangs") }
        let known = Set(ValidationCheck.all.map(\.name))
        for name in included + excluded where !known.contains(name) {
            throw ValidationError("there is no check named \(name.debugDescription); the checks are: "
                + ValidationCheck.all.map(\.name).joined(separator: ", "))
        }
        if !list, selectedChecks.isEmpty { throw ValidationError("--include and --exclude leave no check to run") }
    }

    /// The checks `--include` and `--exclude` leave to run, in their order.
    private var selectedChecks: [ValidationCheck] {
        ValidationCheck.all.filter { (included.isEmpty || included.contains($0.name)) && !excluded.contains($0.name) }
    }

    func run() throws {
        let console = Console.takeStandardOutput()
        guard !list else {
            ValidationCheck.all.forEach { console.line(ValidationFormat.padded($0.name) + $0.description) }
            return
        }
        let checks = selectedChecks
        let validator = Validator(worker: try IsolationOptions.workerPath(), callTimeout: callTimeout.timeout ?? .seconds(10),
                                  trust: trust.policy)
        var failed = false
        var documents: [LibraryResults] = []
        for file in files {
            let path = WorkingDirectory.absolute(file)
            let results = validator.validate(path, checks: checks)
            failed = failed || results.contains(where: \.isFailure)
            let shown = onlyFailed ? results.filter(\.isFailure) : results
            if output.json {
                documents.append(LibraryResults(library: path, checks: shown))
            } else {
                let none = onlyFailed && shown.isEmpty ? ["  no check failed or crashed (\(results.count) run)"] : []
                console.lines([path] + ValidationFormat.lines(shown) + none)
            }
        }
        if output.json { console.jsonDocument(documents) }
        if failed { throw ExitCodes.failure }
    }
}
