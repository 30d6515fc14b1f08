import ArgumentParser
import Plugboard

/// `plugboard list`: every file found, its load status, and each plugin.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the plugin files found, their load status, and their plugins.",
        discussion: """
            Loads each library (entry, version check, init, register) without sending any \
            lifecycle event, then shuts it down.

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
        let host = PluginHost()
        let searchPath = search.searchPath
        let reports = host.loadPlugins(from: searchPath, trust: trust.policy)
        host.shutdown()
        if output.json {
            print(JSONOutput.encode(Listing(searchPath: searchPath.directories.map(\.path), libraries: reports), pretty: true))
        } else {
            if reports.isEmpty {
                print("no plugin files in " + searchPath.directories.map(\.path).joined(separator: ", "))
            }
            reports.flatMap(HumanFormat.load).forEach { print($0) }
            print(HumanFormat.tally(reports))
        }
        if reports.contains(where: { $0.status == .failed }) { throw ExitCodes.failure }
    }
}
