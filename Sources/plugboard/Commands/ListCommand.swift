import ArgumentParser
import Plugboard

/// `plugboard list`: every file found, its load status, and each plugin.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the plugin files found, their load status, and their plugins.",
        discussion: """
            Loads each library in a worker process of its own (entry, version check, init, register) \
            without sending any lifecycle event, then shuts it down: no plugin code runs in \
            this process. A library that crashes, exits or does not return within \
            --call-timeout while loading is reported as failed at stage "worker". What a \
            plugin prints goes to standard error, attributed to its library, never into the \
            report; the human report escapes control characters (\\n, \\x1b).

            \(ExitCodes.helpText)
            """)

    @OptionGroup var search: PluginSearchOptions
    @OptionGroup var trust: TrustOptions
    @OptionGroup var callTimeout: CallTimeoutOptions
    @OptionGroup var output: OutputOptions

    /// The `--json` document.
    struct Listing: Encodable {
        let searchPath: [String]
        let libraries: [LoadReport]
    }

    func run() throws {
        let console = Console.takeStandardOutput()
        FaultReporter.install()
        let searchPath = search.searchPath
        // Plugin code never runs in this process: each library loads in a worker.
        let host = PluginHost(callTimeout: callTimeout.timeout, isolation: try IsolationOptions.workers()) { _ in
        } outputHandler: { line in
            StandardStream.writeError(ControlCharacters.escaped(HumanFormat.output(line)))
        }
        let reports = host.loadPlugins(from: searchPath, trust: trust.policy)
        host.shutdown()
        if output.json {
            console.jsonDocument(Listing(searchPath: searchPath.directories.map(\.path), libraries: reports))
        } else {
            if reports.isEmpty {
                console.line("no plugin files in " + searchPath.directories.map(\.path).joined(separator: ", "))
            }
            reports.flatMap(HumanFormat.load).forEach(console.line)
            console.line(HumanFormat.tally(reports))
        }
        if reports.contains(where: { $0.status == .failed }) { throw ExitCodes.failure }
    }
}
