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
        if let refusal = notUTF8Argument() ?? unknownCommand() {
            StandardStream.writeError("Error: \(refusal)")
            Glibc.exit(ExitCode.validationFailure.rawValue)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty {
                    do { try StandardStream.output([message], command: "plugboard") } catch { Glibc.exit(ExitCodes.reportLost.rawValue) }
                }
            } else if !message.isEmpty {
                StandardStream.writeError(escapingArguments(message).split(separator: "\n", omittingEmptySubsequences: false)
                    .map { ControlCharacters.escaped(String($0)) }.joined(separator: "\n"))
            }
            Glibc.exit(code.rawValue)
        }
    }

    /// `message` with each value it quotes from the command line ('…') escaped whole where the value
    /// holds a line break: ArgumentParser quotes a value as it was given, and its line break would
    /// start a line of its own (the message's own lines are escaped one by one). A value is an
    /// argument, or either side of the first `=` of an option given as `--name=value`.
    private static func escapingArguments(_ message: String) -> String {
        let values = CommandLine.arguments.dropFirst().flatMap { argument -> [String] in
            guard argument.hasPrefix("-"), let equals = argument.firstIndex(of: "=") else { return [argument] }
            return [argument, String(argument[..<equals]), String(argument[argument.index(after: equals)...])]
        }
        return values.filter { $0.contains(where: \.isNewline) }.sorted { $0.count > $1.count }.reduce(message) { text, value in
            text.replacing("'\(value)'", with: "'\(ControlCharacters.escaped(value))'")
        }
    }

    /// The usage error for a first argument that names no command (ArgumentParser's own says
    /// "Unexpected argument"): an option or a command passes, and `help` with the commands it names.
    private static func unknownCommand() -> String? {
        guard let first = CommandLine.arguments.dropFirst().first, !first.hasPrefix("-") else { return nil }
        if first == "help" { return unknownHelpTopic() }
        let names = configuration.subcommands.map { $0.configuration.commandName ?? "" }
        guard !names.contains(first) else { return nil }
        return "there is no command \(quoted: first); the commands are \(names.joined(separator: ", ")) "
            + "('plugboard help COMMAND' describes one)"
    }

    /// The usage error for `help` followed by a word that names no command there (ArgumentParser
    /// shows the help of the command before it, and succeeds).
    private static func unknownHelpTopic() -> String? {
        var subcommands = configuration.subcommands
        var path = "plugboard"
        for word in CommandLine.arguments.dropFirst(2) where !word.hasPrefix("-") {
            let names = subcommands.map { $0.configuration.commandName ?? "" }
            guard let index = names.firstIndex(of: word) else {
                return names.isEmpty ? "'\(path)' has no commands, so no \(quoted: word)"
                    : "'\(path)' has no command \(quoted: word); its commands are \(names.joined(separator: ", "))"
            }
            subcommands = subcommands[index].configuration.subcommands
            path += " " + word
        }
        return nil
    }

    /// The usage error for the first argument that is not UTF-8, if one is not: Swift hands every
    /// argument over as text, its bad bytes repaired with U+FFFD, so such a path would name
    /// another file (or none) and such a value would be silently changed.
    private static func notUTF8Argument() -> String? {
        // A stride, not a range: a process started with no argument at all (argc 0) has none to check.
        for index in stride(from: 1, to: Int(CommandLine.argc), by: 1) {
            guard let argument = CommandLine.unsafeArgv[index], String(validatingCString: argument) == nil else { continue }
            let shown = String(decoding: UnsafeRawBufferPointer(start: argument, count: strlen(argument)), as: UTF8.self)
            return "argument \(index), \(quoted: shown) (shown with U+FFFD), is not UTF-8: plugboard takes paths and values as UTF-8 text"
        }
        return nil
    }
}
