import ArgumentParser
import PlugboardFiles

/// `plugboard files mv FROM TO`: move or rename an entry, across directories too.
struct FilesMoveCommand: FilesSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "mv",
        abstract: "Move or rename a file or folder, also from one standard directory to another.",
        discussion: """
            One atomic rename: the entry is never lost or partial. TO is the new path itself, \
            not a folder to move into. An existing TO is kept unless --overwrite is given.

            Examples:
              plugboard files mv Documents/draft.txt Documents/final.txt
              plugboard files mv Documents/Inbox/photo.jpg Library/photos/photo.jpg --parents

            \(FilesHelp.exitCodes)
            """)

    @Argument(help: FilesHelp.path("The entry to move", valueName: "from"))
    var from: String

    @Argument(help: FilesHelp.path("Its new path", valueName: "to"))
    var to: String

    @OptionGroup var transfer: TransferOptions
    @OptionGroup var container: ContainerOptions

    func run() throws {
        try FilesSession.transfer(from, to, transfer, container) { facade, source, target, transfer in
            try facade.move(
                source.name, from: source.directory, to: target.name, in: target.directory,
                overwrite: transfer.overwrite, createIntermediateDirectories: transfer.parents)
        }
    }
}
