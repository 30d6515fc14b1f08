import ArgumentParser
import Plugboard

/// `plugboard inspect FILE.so`: one library in detail.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show one plugin library in detail: ABI version, struct sizes, plugins, concerns.",
        discussion: """
            Loads the library in a worker process of its own (entry, version check, init, register) \
            without sending any lifecycle event, then shuts it down: no plugin code runs in \
            this process. A library that crashes, exits or does not return within \
            --call-timeout while loading is reported as failed at the stage it was in (and \
            remembered by the scan cache until its file changes). What a \
            plugin prints goes to standard error, attributed to its library, never into the \
            report; the human report escapes control characters (\\n, \\x1b). An \
            unchanged library is answered from the scan cache without being loaded, as in \
            `plugboard list` (see its help). --policy FILE shows what the policy denies each plugin.

            \(ExitCodes.helpText)
            """)

    @Argument(help: ArgumentHelp("The plugin library to inspect.", valueName: "file.so"))
    var file: String

    @OptionGroup var trust: TrustOptions
    @OptionGroup var callTimeout: CallTimeoutOptions
    @OptionGroup var cache: ScanCacheOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var sandbox: SandboxOptions
    @OptionGroup var output: OutputOptions

    /// The `--json` document.
    struct Inspection: Encodable {
        let hostABI: ABIVersion
        let library: CachedReport
        /// A cache file that was ignored or could not be saved.
        let notes: [String]
        /// What `--policy` denies each plugin; absent without one.
        let policy: PolicyDenials?
    }

    func validate() throws {
        if file.isEmpty { throw ValidationError("the library path is empty") }
    }

    func run() throws {
        let console = Console.takeStandardOutput()
        FaultReporter.install()
        var scanCache = try cache.open()
        var library = scanCache.library(at: WorkingDirectory.absolute(file), trust: trust.policy,
                                        options: cache.scanOptions(scanning: ScanOptions.inWorkers(
                                            worker: try IsolationOptions.workerPath(), callTimeout: callTimeout.timeout,
                                            sandbox: sandbox.mode, grants: try policy.policy(), output: StandardStream.writeOutputLine)))
        scanCache.save()
        let policy = try policy.policy()
        library.report = sandbox.describing(library.report, policy: policy)
        let report = library.report
        let denials = PolicyDenials(policy, plugins: report.plugins)
        if output.json {
            console.jsonDocument(Inspection(hostABI: .host, library: CachedReport(library: library), notes: scanCache.notes,
                                            policy: denials))
        } else {
            console.lines(lines(report, cached: library.cached, denials: denials) + scanCache.notes.map { "note: " + $0 })
        }
        if report.status == .failed { throw ExitCodes.failure }
    }

    private func lines(_ report: LoadReport, cached: Bool, denials: PolicyDenials?) -> [String] {
        func row(_ key: String, _ value: String) -> String {
            key.padding(toLength: 14, withPad: " ", startingAt: 0) + value
        }
        var lines = [row("File", report.path), row("Status", report.status.rawValue)]
        if cached { lines.append(row("Cached", "yes: answered from the scan cache, the library was not loaded")) }
        if let failure = report.failure {
            lines.append(row("Stage", failure.stage.rawValue))
            lines.append(row("Error", failure.message))
            if let system = failure.systemError { lines.append(row("System error", system)) }
        }
        if let abi = report.abi {
            lines.append(row("ABI", "\(abi.version) (host \(ABIVersion.host))"))
            lines.append(row("Struct sizes", abi.sortedStructSizes.map { "\($0.name) \($0.size)" }.joined(separator: ", ")))
        }
        if let sandbox = report.sandbox { lines.append(row("Sandbox", sandbox.line)) }
        lines += report.warnings.map { row("Warning", $0) }
        lines.append(row("Plugins", String(report.plugins.count)))
        for plugin in report.plugins {
            let d = plugin.descriptor
            lines.append("  \(d.id)")
            lines.append("    " + row("Name", d.name))
            lines.append("    " + row("Version", d.version))
            lines.append("    " + row("Priority", String(d.priority)))
            lines.append("    " + row("Concerns", plugin.concerns.map(\.rawValue).joined(separator: ", ")))
            if let denied = denials?.denied(d.id) { lines.append("    " + row("Denied", denied + " (by the policy)")) }
            for function in plugin.functions {
                lines.append("    " + row("Function", HumanFormat.function(function)))
            }
            lines += plugin.functionWarnings.map { "    " + row("Warning", $0) }
        }
        lines += report.refused.map { "  refused \($0.id.isEmpty ? "(no id)" : $0.id): \($0.failure)" }
        return lines
    }
}
