import ArgumentParser
import PlugboardFiles

/// `plugboard files cp FROM TO`: copy a regular file, across directories too.
struct FilesCopyCommand: FilesSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "cp",
        abstract: "Copy a regular file, also from one standard directory to another.",
        discussion: """
            The copy appears atomically and keeps the source's permission bits. TO is the new \
            path itself, not a folder to copy into. An existing TO is kept unless --overwrite is given.

            Examples:
              plugboard files cp Library/prefs.json Library/prefs.json.bak
              plugboard files cp Documents/Inbox/report.pdf Documents/reports/2026.pdf --parents

            \(FilesHelp.exitCodes)
            """)

    @Argument(help: FilesHelp.path("The file to copy", valueName: "from"))
    var from: String

    @Argument(help: FilesHelp.path("The copy's path", valueName: "to"))
    var to: String

    @OptionGroup var transfer: TransferOptions
    @OptionGroup var container: ContainerOptions

    func run() throws {
        try FilesSession.transfer(from, to, transfer, container) { facade, source, target, transfer in
            try facade.copy(
                source.name, from: source.directory, to: target.name, in: target.directory,
                overwrite: transfer.overwrite, createIntermediateDirectories: transfer.parents)
        }
    }
}
