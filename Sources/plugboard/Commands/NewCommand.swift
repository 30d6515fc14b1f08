import ArgumentParser
import Foundation
import Plugboard

/// `plugboard new NAME --lang c|cpp|rust|swift`: scaffolds a plugin project that builds and loads with no edits.
struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Scaffold a plugin project in C, C++, Rust or Swift that builds and runs with no edits.",
        discussion: """
            Writes DIR (default ./NAME): the sources, a build file (Makefile, Cargo.toml or \
            Package.swift), a README with the three commands from here to a running plugin \
            (build; plugboard run --plugin-dir <out> --open-url NAME://world; plugboard \
            validate), and a .gitignore. The plugin, id com.example.NAME unless --id, opens \
            NAME:// links and logs at launch and at termination.

            NAME: 1 to 64 lowercase letters a-z, digits and single '-' between words, starting \
            with a letter (deep-links). It is the folder, the URL scheme and the id's last label, \
            the C/C++ library build/NAME.so, the Rust library libNAME.so ('-' as '_'), and the \
            plugin type and Swift module NAMEPlugin in UpperCamelCase (DeepLinksPlugin).

            The build file names the Plugboard SDK in one marked line: --sdk DIR, else \
            $PLUGBOARD_SDK, else the nearest folder above this executable that holds the \
            language's SDK (include/plugboard.h for C, include/plugboard/cpp/plugin.hpp for C++, \
            plugins/rust-sdk for Rust, Sources/PlugboardSDK for Swift): a checkout for a \
            plugboard built in it, the prefix for an installed one (C and C++).

            Nothing is written unless everything is valid: a bad NAME, --id or --lang, a DIR \
            that exists and is not an empty folder, or an SDK that cannot be found is a usage \
            error (64); the files are written into a temporary folder beside DIR, then renamed \
            to DIR (or, when DIR is an empty folder, moved into it). A failed write exits 1 and \
            leaves nothing behind; a standard output that cannot take the next steps exits 74, \
            the project written.
            """)

    @Argument(help: ArgumentHelp("The project's name (deep-links).", valueName: "name"))
    var name: String

    @Option(name: .customLong("lang"), help: ArgumentHelp("The language of the sources.", valueName: "c|cpp|rust|swift"))
    var language: ProjectLanguage

    @Option(help: ArgumentHelp("The project folder, missing or empty (default: ./NAME).", valueName: "dir"))
    var dir: String?

    @Option(help: ArgumentHelp("The plugin id, reverse-DNS (default: com.example.NAME).", valueName: "id"))
    var id: String?

    @Option(help: ArgumentHelp("The Plugboard SDK folder the build file names (default: $PLUGBOARD_SDK, else found from this executable).",
                               valueName: "dir"))
    var sdk: String?

    /// The project, its folder (absolute), checked before anything is written.
    private func scaffold() throws -> (Scaffold, String) {
        let projectName: ProjectName
        do { projectName = try ProjectName(validating: name) } catch {
            throw ValidationError("NAME \(String(reflecting: name)): \(error)")
        }
        let pluginID: PluginID
        do { pluginID = try PluginID(validating: id ?? projectName.defaultID) } catch {
            throw ValidationError("--id \(String(reflecting: id ?? "")): \(error)")
        }
        if dir?.isEmpty == true { throw ValidationError("--dir needs a folder path, got \"\"") }
        var directory = WorkingDirectory.absolute(dir ?? name)
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        directory = ProjectWriter.destination(directory)
        try ProjectWriter.checkDestination(directory)
        let sdkFolder = try SDKLocation.resolve(explicit: sdk, environment: ProcessInfo.processInfo.environment,
                                                executable: CommandLine.executablePath, for: language)
        return (Scaffold(name: projectName, id: pluginID, language: language, sdk: sdkFolder), directory)
    }

    func validate() throws {
        _ = try scaffold()
    }

    func run() throws {
        let (project, directory) = try scaffold()
        do {
            try ProjectWriter.write(project.files, to: directory)
        } catch {
            StandardStream.writeError("plugboard new: " + ControlCharacters.escaped(error.description))
            throw ExitCodes.failure
        }
        try StandardStream.output([
            ControlCharacters.escaped("created \(directory): a \(project.language.title) plugin, id \(project.id), SDK \(project.sdk)"),
            ControlCharacters.escaped("next, in \(directory):"),
        ] + project.commands.map { "  " + $0 }, command: "plugboard new")
    }
}
