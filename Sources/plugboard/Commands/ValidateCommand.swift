import ArgumentParser
import Glibc
import Plugboard
import PlugboardValidation

/// `plugboard validate FILE.so|DIR…`: checks libraries the way a host will use them, for plugin authors.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check plugin libraries for defects, each check in a worker of its own.",
        discussion: """
            Runs each check on each library in a fresh plugin worker, so plugin code that \
            crashes ends only that check (status crashed, with the signal and the callback) \
            and the validator carries on. Statuses: pass, warn, fail, crashed, skipped (the \
            library does not load); each with a reason and its duration. --list prints the \
            checks with what each asks. A folder stands for the libraries in it, the \
            *.so files `run --plugin-dir` would load, in the same order.

            Exit status: 0 when no check failed or crashed (warnings allowed), 1 when one \
            did, 64 for a usage error.
            """)

    @Argument(help: ArgumentHelp("The plugin libraries to check, or folders of them.", valueName: "file.so|dir"))
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

    /// The libraries to check, as absolute paths: each file given, and the `*.so` files of each
    /// folder given, as a plugin folder is scanned. A folder that cannot be read, or holds no
    /// library, is a usage error naming it; a file in it whose name is not UTF-8 is one too (a
    /// path with its bytes repaired would name no file).
    private func libraries() throws -> [String] {
        try files.flatMap { file -> [String] in
            let path = WorkingDirectory.absolute(file)
            var status = stat()
            guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return [path] }
            let entries: [PluginDirectoryScanner.Entry]
            do throws(LoadFailure) {
                entries = try PluginDirectoryScanner.scan(path)
            } catch {
                throw ValidationError("\(quoted: file): \(error.description)")
            }
            if let bad = entries.first(where: { !$0.nameIsUTF8 }) {
                throw ValidationError("\(quoted: bad.path) (shown with U+FFFD): the file's name is not UTF-8")
            }
            guard !entries.isEmpty else { throw ValidationError("\(quoted: file) holds no plugin library (*.so)") }
            return entries.map(\.path)
        }
    }

    /// The checks `--include` and `--exclude` leave to run, in their order.
    private var selectedChecks: [ValidationCheck] {
        ValidationCheck.all.filter { (included.isEmpty || included.contains($0.name)) && !excluded.contains($0.name) }
    }

    func run() throws {
        // Folders are listed once, here; one that cannot be used is a usage error, before any check runs.
        let paths = list ? [] : try libraries()
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
        for path in paths {
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
