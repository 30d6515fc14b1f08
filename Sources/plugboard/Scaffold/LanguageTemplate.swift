/// What one language contributes to a scaffolded project: its sources and build file, the one
/// command that builds it, and where the plugin library lands.
struct LanguageTemplate {
    /// The sources and the build file.
    let files: [ProjectFile]
    /// The build command, run in the project folder.
    let build: String
    /// The folder the library is built into, relative to the project folder: the plugin folder to run.
    let libraryDirectory: String
    /// The library's file name in `libraryDirectory`.
    let libraryFile: String
    /// Where the project's build file names the SDK (for the README): `the PLUGBOARD_INCLUDE line of the Makefile`.
    let sdkSetting: String
    /// The `.gitignore` lines: the build's output.
    let ignored: [String]
}
