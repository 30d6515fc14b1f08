import ArgumentParser
import Foundation
import Plugboard
import PlugboardFiles

/// `plugboard state`: the plugins' saved states in an application's container, listed,
/// shown and removed.
struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "List, show and remove the plugins' saved states in an application's container.",
        discussion: """
            `plugboard run` keeps each saved-state plugin's state in one file per plugin id, \
            Library/Plugboard State/<plugin-id>.state in the container (the plugin's version, the \
            save time, the bytes and a CRC-32), restores it before will-finish-launching and saves \
            it after will-terminate. These commands take the container options `run` takes.

            Examples:
              plugboard state ls --app-name notes
              plugboard state show com.example.history
              plugboard state rm com.example.history
              plugboard state rm --all --json

            \(StateSession.exitCodes)
            """,
        subcommands: [StateListCommand.self, StateShowCommand.self, StateRemoveCommand.self])
}

/// What every `state` subcommand shares: the store of the chosen container, plugin-id
/// arguments, the `--json` rendering of a state, and the one-line error report.
enum StateSession {
    /// The exit codes of every `state` subcommand.
    static let exitCodes = """
        Exit codes: 0 success; 1 the operation failed or a state file is unusable (one line on \
        standard error, "plugboard state: ", names the file and the cause); 64 usage error \
        (unknown option, a malformed plugin id, unusable --container or --app-name); 74 standard \
        output could not be written (closed, full or broken; one line on standard error says so).
        """

    /// The store of the container `options` names.
    static func store(_ options: ContainerOptions) throws -> SavedStateStore {
        SavedStateStore(facade: FileFacade(container: try options.container()))
    }

    /// `text` as a plugin id, or a usage error that says why not.
    static func pluginID(_ text: String) throws -> PluginID {
        do {
            return try PluginID(validating: text)
        } catch {
            throw ValidationError("\(quoted: text) is not a plugin id: \(error)")
        }
    }

    /// A save time for `--json` and people: ISO 8601, UTC, to the second.
    static func savedAt(_ file: SavedStateFile) -> String {
        FilesFormat.iso8601(Date(timeIntervalSince1970: Double(file.savedAtNanoseconds) / 1e9))
    }

    /// Writes `lines` to standard output, or ends the command as ``StandardStream/output(_:command:)`` says.
    static func output(_ lines: some Sequence<String>) throws {
        try StandardStream.output(lines, command: "plugboard state")
    }

    /// Reports `message` as the command's one line on standard error and ends it with exit code 1.
    static func fail(_ message: String) throws -> Never {
        StandardStream.writeError("plugboard state: " + ControlCharacters.escaped(message))
        throw ExitCodes.failure
    }
}
