import ArgumentParser
import Plugboard

/// The `plugboard` command: load plugins, run them, look into them.
@main
struct PlugboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugboard",
        abstract: "Load drop-in .so plugins and run the application lifecycle through them.",
        discussion: ExitCodes.helpText,
        version: HostIdentity.version,
        subcommands: [RunCommand.self, CallCommand.self, ListCommand.self, InspectCommand.self, FilesCommand.self, StateCommand.self, ValidateCommand.self, NewCommand.self, BlameCommand.self])
}
