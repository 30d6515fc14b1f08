import ArgumentParser
import Glibc
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

    /// Parses and runs as ArgumentParser's own `main` does, but writes an error (a usage error, a
    /// failure's message) with each line's control characters escaped: a path or a value given
    /// with an escape sequence in it must not reach the terminal raw, as the reports never let
    /// one. What ends the command successfully (the help, the version, a completion script) is
    /// written as it is.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
            } else if !message.isEmpty {
                StandardStream.writeError(message.split(separator: "\n", omittingEmptySubsequences: false)
                    .map { ControlCharacters.escaped(String($0)) }.joined(separator: "\n"))
            }
            Glibc.exit(code.rawValue)
        }
    }
}
