import ArgumentParser
import Plugboard

/// `plugboard list`: every file found, its load status, and each plugin.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the plugin files found, their load status, and their plugins.",
        discussion: """
            Loads each library (entry, version check, init, register) without sending any \
            lifecycle event, then shuts it down. What a plugin prints goes to standard error, \
            never into the report; the human report escapes control characters (\\n, \\x1b).

            \(ExitCodes.helpText)
            """)

    @OptionGroup var search: PluginSearchOptions
    @OptionGroup var trust: TrustOptions
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
        let host = PluginHost()
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
