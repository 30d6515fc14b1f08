import ArgumentParser

/// `plugboard files`: look into and change an application's container through the
/// sandboxed file facade, one subcommand per operation.
struct FilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "files",
        abstract: "Look into an application's container: list, read, write, move and describe its files.",
        discussion: """
            Paths are container paths: they start with one of the four standard directories \
            (Documents, Documents/Inbox, Library, tmp), as in Documents/notes/a.txt, \
            Library/prefs.json or tmp/x. "..", absolute paths, empty or "." segments and \
            symbolic links are refused, so nothing outside the container is ever touched. \
            So are control characters (U+0001-U+001F, U+007F) and paths past the limits: \
            a component over 255 bytes, a path over 4095 bytes or through more than 128 \
            folders (the directory counts: tmp/a/b.txt is 2 deep). The container's directories are created first when missing.

            Examples:
              plugboard files ls --app-name notes
              plugboard files write Documents/notes/a.txt --text "hello" --parents
              plugboard files cat Documents/notes/a.txt
              plugboard files mv Documents/notes/a.txt Library/archive/a.txt --parents
              plugboard files stat Library/archive/a.txt --json

            \(FilesHelp.exitCodes)
            """,
        subcommands: [
            FilesListCommand.self, FilesCatCommand.self, FilesWriteCommand.self, FilesRemoveCommand.self,
            FilesMoveCommand.self, FilesCopyCommand.self, FilesStatCommand.self, FilesExtensionCommand.self,
        ])
}

/// Help text shared by the `files` subcommands.
enum FilesHelp {
    /// The exit codes of every `files` subcommand.
    static let exitCodes = """
        Exit codes: 0 success; 1 the operation failed (one line on standard error, \
        "plugboard files: ", names the operation, the path and the cause); 64 usage error \
        (unknown option, missing argument, unusable --container or --app-name); 74 standard output \
        could not be written (closed, full or broken; one line on standard error says so).
        """

    /// The help of a container path argument.
    static func path(_ what: String, valueName: String = "path") -> ArgumentHelp {
        ArgumentHelp("\(what), a container path such as Documents/notes/a.txt.", valueName: valueName)
    }
}
