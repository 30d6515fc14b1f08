import ArgumentParser
import PlugboardFiles

/// `plugboard files rm PATH`: remove a file, a symbolic link or an empty folder.
struct FilesRemoveCommand: FilesSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove a file, a symbolic link (never its target) or an empty folder.",
        discussion: """
            A folder with contents is refused; remove what is inside first.

            Examples:
              plugboard files rm Documents/notes/a.txt
              plugboard files rm Documents/notes

            \(FilesHelp.exitCodes)
            """)

    @Argument(help: FilesHelp.path("The entry to remove"))
    var path: String

    @OptionGroup var container: ContainerOptions

    func run() throws {
        try FilesSession.perform(container) { session in
            let location = try session.location(path)
            try session.facade.delete(location.name, in: location.directory)
        }
    }
}
