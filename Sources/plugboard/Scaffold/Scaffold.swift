import Plugboard

/// The plugin project `plugboard new` writes: a language's sources and build file, a README
/// with the three commands from the scaffold to a running plugin, and a `.gitignore`.
///
/// The plugin opens `<name>://` links and logs at launch and at termination, so that running
/// it shows it answering.
struct Scaffold {
    /// The project's name: its folder, scheme and derived identifiers.
    let name: ProjectName
    /// The plugin's id.
    let id: PluginID
    /// The language of the sources.
    let language: ProjectLanguage
    /// The SDK folder the build file names (absolute, checked by ``SDKLocation``).
    let sdk: String

    /// The language's part of the project.
    var template: LanguageTemplate { language.template(self) }

    /// The link the README's run command opens.
    var sampleURL: String { name.scheme + "://world" }

    /// The three commands, run in the project folder: build, run with a link, validate.
    var commands: [String] {
        let template = template
        return [template.build,
                "plugboard run --plugin-dir \(template.libraryDirectory) --open-url \(sampleURL)",
                "plugboard validate \(template.libraryDirectory)/\(template.libraryFile)"]
    }

    /// Every file of the project.
    var files: [ProjectFile] {
        let template = template
        return template.files + [readme(template), ProjectFile(path: ".gitignore", text: template.ignored.joined(separator: "\n") + "\n")]
    }

    private func readme(_ template: LanguageTemplate) -> ProjectFile {
        ProjectFile(path: "README.md", text: """
            # \(name)

            A Plugboard plugin in \(language.title), made by `plugboard new`. Its plugin, `\(id)`,
            opens `\(name.scheme)://` links and logs at launch and at termination.

            Build it, run it with a link, check it (`plugboard` is the Plugboard command-line tool):

            ```sh
            \(commands.joined(separator: "\n"))
            ```

            The build finds the Plugboard SDK through \(template.sdkSetting), written by
            `plugboard new`; change it if the SDK moves. A plugin exports one C function,
            `plugboard_entry`; the SDK's README lists the rules each SDK enforces and the
            checks `plugboard validate` runs.

            """)
    }
}
