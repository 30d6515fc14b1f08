import ArgumentParser
import PlugboardFiles

/// `plugboard files write PATH [--text STRING]`: create or replace a file from text or
/// from standard input.
struct FilesWriteCommand: FilesSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Write a file from --text or from standard input (binary-safe).",
        discussion: """
            The file appears atomically: a reader sees the old contents or the new, never a part. \
            An existing file is kept unless --overwrite is given; a missing folder is an error \
            unless --parents is given.

            Examples:
              plugboard files write Documents/notes/a.txt --text "hello"
              plugboard files write Library/cache.bin --overwrite < cache.bin
              printf 'x\\n' | plugboard files write tmp/deep/x --parents

            \(FilesHelp.exitCodes)
            """)

    @Argument(help: FilesHelp.path("The file to write"))
    var path: String

    @Option(help: ArgumentHelp("The contents, as UTF-8; without it, standard input is read to its end (at most 1 GiB).",
                               valueName: "string"))
    var text: String?

    @OptionGroup var transfer: TransferOptions
    @OptionGroup var container: ContainerOptions

    /// The most bytes one write takes from standard input, 1 GiB, as the files service takes from a
    /// plugin: the file is written whole, from memory.
    static let largestInput = 1 << 30

    func run() throws {
        let destination = try? PathAdapter.location(forContainerPath: path)
        let hint = FilesSession.destinationHint(destination, parents: transfer.parents)
        try FilesSession.perform(container, hint: hint) { session in
            let location = try session.location(path)
            let bytes: [UInt8]
            if let text {
                bytes = Array(text.utf8)
            } else {
                if StandardStream.inputIsTerminal {
                    StandardStream.writeError("plugboard files: reading standard input; end it with Ctrl-D")
                }
                let read: [UInt8]?
                do {
                    read = try StandardStream.readAll(atMost: Self.largestInput)
                } catch {
                    try FilesSession.fail("cannot read standard input: \(error)")
                }
                guard let read else {
                    try FilesSession.fail("standard input is longer than \(Self.largestInput >> 30) GiB, the most one write takes")
                }
                bytes = read
            }
            try session.facade.writeBytes(
                bytes, to: location.name, in: location.directory, overwrite: transfer.overwrite,
                createIntermediateDirectories: transfer.parents)
        }
    }
}

/// `--overwrite` and `--parents`, shared by the commands that create a destination.
struct TransferOptions: ParsableArguments {
    @Flag(help: "Replace an existing destination (without it, an existing destination is refused).")
    var overwrite = false

    @Flag(help: "Create the destination's missing folders.")
    var parents = false
}
