import ArgumentParser
import Plugboard

/// `plugboard state ls`: every state file of the container, valid or not.
struct StateListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List the saved states: plugin id, version, size, save time, valid or why not.",
        discussion: """
            One line per Library/Plugboard State/*.state file, sorted by name. A file that is \
            corrupt, truncated, foreign or unreadable is listed with the cause (it is not an \
            error: `run` would start that plugin without state). --json prints an array of \
            {"plugin", "file", "valid", "version", "savedAt", "stateBytes", "fileBytes", "problem"} \
            (the fields a file does not give are null).

            \(StateSession.exitCodes)
            """)

    @OptionGroup var container: ContainerOptions
    @OptionGroup var output: OutputOptions

    /// One row of the `--json` array.
    struct Row: Encodable {
        let plugin: String
        let file: String
        let valid: Bool
        let version: String?
        let savedAt: String?
        let stateBytes: Int?
        let fileBytes: UInt64?
        let problem: String?

        private enum CodingKeys: String, CodingKey { case plugin, file, valid, version, savedAt, stateBytes, fileBytes, problem }

        /// Every key is written; what a file does not give is null.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(plugin, forKey: .plugin)
            try container.encode(file, forKey: .file)
            try container.encode(valid, forKey: .valid)
            try container.encode(version, forKey: .version)
            try container.encode(savedAt, forKey: .savedAt)
            try container.encode(stateBytes, forKey: .stateBytes)
            try container.encode(fileBytes, forKey: .fileBytes)
            try container.encode(problem, forKey: .problem)
        }
    }

    func run() throws {
        let store = try StateSession.store(container)
        let listings: [SavedStateListing]
        do {
            listings = try store.list()
        } catch {
            try StateSession.fail(error.description)
        }
        let rows = listings.map { listing in
            let plugin = String(listing.fileName.dropLast(SavedStateStore.fileExtension.count))
            return switch listing.content {
            case .success(let file):
                Row(plugin: plugin, file: listing.path, valid: true, version: file.pluginVersion,
                    savedAt: StateSession.savedAt(file), stateBytes: file.state.count, fileBytes: listing.size, problem: nil)
            case .failure(let problem):
                Row(plugin: plugin, file: listing.path, valid: false, version: nil, savedAt: nil, stateBytes: nil,
                    fileBytes: listing.size, problem: problem.cause)
            }
        }
        if output.json {
            try StateSession.output([JSONOutput.encode(rows, pretty: true)])
        } else if rows.isEmpty {
            try StateSession.output(
                ["no saved state in '\(ControlCharacters.escaped(store.facade.container.path(of: .library)))/\(SavedStateStore.folder)'"])
        } else {
            try StateSession.output(rows.map { row in
                let detail = row.valid
                    ? "\(row.version ?? "")  \(row.stateBytes ?? 0) bytes  saved \(row.savedAt ?? "")"
                    : "UNUSABLE: \(row.problem ?? "")"
                return ControlCharacters.escaped("\(row.plugin)  \(detail)")
            })
        }
    }
}
