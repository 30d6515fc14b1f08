import ArgumentParser
import PlugboardFiles

/// `plugboard files cat PATH`: a file's bytes on standard output, unchanged.
struct FilesCatCommand: FilesSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "cat",
        abstract: "Write a file's bytes to standard output, unchanged (binary-safe).",
        discussion: """
            Only regular files are read: a directory, a FIFO, a device or a symbolic link is refused. \
            A file of any size is written as it is read, a part at a time: when reading fails \
            midway (exit 1), standard output holds the part read before.

            Examples:
              plugboard files cat Documents/notes/a.txt
              plugboard files cat Library/cache.bin > cache.bin

            \(FilesHelp.exitCodes)
            """)

    @Argument(help: FilesHelp.path("The file to read"))
    var path: String

    @OptionGroup var container: ContainerOptions

    func run() throws {
        try FilesSession.perform(container) { session in
            let location = try session.location(path)
            try StandardStream.output(command: "plugboard files") { write in
                try session.facade.readChunks(location.name, in: location.directory, write)
            }
        }
    }
}
