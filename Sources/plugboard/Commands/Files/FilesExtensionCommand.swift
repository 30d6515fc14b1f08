import ArgumentParser
import PlugboardFiles

/// `plugboard files ext PATH NEW_EXTENSION`: rename a file to carry another extension.
struct FilesExtensionCommand: FilesSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "ext",
        abstract: "Change a file's extension (after the last dot) and print its new path.",
        discussion: """
            Only the last dot counts: archive.tar.gz becomes archive.tar.zip. A leading dot \
            starts a hidden name, not an extension: .profile becomes .profile.bak. An empty \
            extension ("") removes it; one leading dot in NEW_EXTENSION is ignored (".md" is "md"). \
            An existing file with the new name is kept unless --overwrite is given.

            Examples:
              plugboard files ext Documents/notes/a.txt md
              plugboard files ext Documents/archive.tar.gz zip --overwrite

            \(FilesHelp.exitCodes)
            """)

    @Argument(help: FilesHelp.path("The file to rename"))
    var path: String

    @Argument(help: ArgumentHelp("The new extension, without the dot; \"\" removes the extension.",
                                 valueName: "new-extension"))
    var newExtension: String

    @Flag(help: "Replace an existing file that has the new name.")
    var overwrite = false

    @OptionGroup var container: ContainerOptions

    func run() throws {
        // One leading dot is dropped only from an extension it then makes valid: the refusal of
        // one that stays invalid ("..", "..md") names it as it was given.
        let rest = newExtension.dropFirst()
        let bare = newExtension.hasPrefix(".") && !rest.contains(".") ? String(rest) : newExtension
        try FilesSession.perform(container, hint: FilesSession.destinationHint()) { session in
            let location = try session.location(path)
            let newName = try session.facade.changeExtension(
                of: location.name, in: location.directory, to: bare, overwrite: overwrite)
            try FilesSession.output([ControlCharacters.escaped(
                FilesSession.containerPath(FileLocation(directory: location.directory, name: newName)))])
        }
    }
}
