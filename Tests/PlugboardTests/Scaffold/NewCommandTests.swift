import Foundation
import Testing

/// `plugboard new` end to end: the real binary scaffolds a project, the project builds with its
/// own build file exactly as its README says, and the real binary runs and validates the result.
@Suite struct NewCommandTests {
    /// The three commands of a project's README (build, run, validate), in order.
    private func readmeCommands(_ project: String) throws -> [String] {
        let readme = try String(contentsOfFile: project + "/README.md", encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "```sh"), "no sh block in the README:\n\(readme)")
        let end = try #require(lines[(start + 1)...].firstIndex(of: "```"), "the sh block is not closed:\n\(readme)")
        return Array(lines[(start + 1)..<end])
    }

    /// The arguments of a README command that runs `plugboard` (the words after it).
    private func plugboardArguments(_ command: String) throws -> [String] {
        let words = command.split(separator: " ").map(String.init)
        try #require(words.first == "plugboard", "not a plugboard command: \(command)")
        return Array(words.dropFirst())
    }

    /// Runs a README's build command with `sh` in `project`; `cargo`'s own folder comes first on PATH
    /// for Rust, so that rustup's toolchain is found as the Rust SDK tests find it.
    private func build(_ command: String, in project: String, language: String) throws -> ProcessResult {
        var environment = TestPaths.hermeticEnvironment
        // SwiftPM leaves its lock files and folders in its temporary folder: this one, removed with the test's.
        let temporary = project + "/.tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        environment["TMPDIR"] = temporary
        if language == "rust" {
            let cargo = URL(fileURLWithPath: try Cargo.executable()).deletingLastPathComponent().path
            environment["PATH"] = cargo + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        }
        return try PlugboardTests.run("/bin/sh", ["-c", command], environment: environment, workingDirectory: project)
    }

    /// Every path under `directory`, relative to it, sorted.
    private func tree(_ directory: String) -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).sorted()
    }

    @Test(arguments: ["c", "cpp", "rust", "swift"])
    func aScaffoldBuildsRunsAndValidatesAsItsReadmeSays(language: String) throws {
        let root = try TemporaryDirectory("plugboard-new-\(language)")
        defer { root.remove() }
        let name = "hello-\(language)"
        let id = "com.example.\(name)"
        let created = try CLI.run(["new", name, "--lang", language], workingDirectory: root.path)
        try #require(created.status == 0, "\(created.output)\n\(created.errorOutput)")
        #expect(tree(root.path).first == name, "only the project, no staging folder: \(tree(root.path))")
        let project = root.file(name)
        #expect(FileManager.default.fileExists(atPath: project + "/.gitignore"))
        let commands = try readmeCommands(project)
        try #require(commands.count == 3, "\(commands)")
        #expect(created.output.contains(commands.map { "  " + $0 }.joined(separator: "\n")), "\(created.output)")

        let built = try build(commands[0], in: project, language: language)
        try #require(built.status == 0, "\(commands[0]) failed:\n\(built.output)\n\(built.errorOutput)")

        let ran = try CLI.run(try plugboardArguments(commands[1]), workingDirectory: project)
        #expect(ran.status == 0, "\(ran.output)\n\(ran.errorOutput)")
        #expect(ran.output.contains("open-url \(name)://world → handled by \(id)"), "\(ran.output)")
        #expect(CLI.pluginLogs(ran.output).filter { $0.hasPrefix(id + ": ") }
                    == ["launched", "open world", "terminating"].map { "\(id): \($0)" }, "\(ran.output)")

        let validated = try CLI.run(try plugboardArguments(commands[2]), workingDirectory: project)
        #expect(validated.status == 0, "\(validated.output)\n\(validated.errorOutput)")
        #expect(validated.output.contains("pass    loads"), "\(validated.output)")
    }

    /// The quick start of plugins/README.md for `language`: the commands under its `# <Language>` line.
    private func quickStart(_ language: String) throws -> [String] {
        let readme = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("plugins/README.md"), encoding: .utf8)
        let title = ["c": "C", "cpp": "C++", "rust": "Rust", "swift": "Swift"][language] ?? language
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "# " + title), "no quick start for \(title) in plugins/README.md")
        return Array(lines[(start + 1)...].prefix { !$0.isEmpty && !$0.hasPrefix("```") })
    }

    /// The quick starts, run as written from an empty folder; the top-level README shows the same commands.
    @Test(arguments: ["c", "cpp", "rust", "swift"])
    func theQuickStartsRunAsWritten(language: String) throws {
        let root = try TemporaryDirectory("plugboard-quick-start-\(language)")
        defer { root.remove() }
        let commands = try quickStart(language)
        try #require(commands.count == 3, "\(commands)")
        let readme = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("```sh\n" + commands.joined(separator: "\n") + "\n```"), "README.md shows other commands for \(language)")
        let created = try CLI.run(try plugboardArguments(commands[0]), workingDirectory: root.path)
        try #require(created.status == 0, "\(created.errorOutput)")
        let built = try build(commands[1], in: root.path, language: language)
        try #require(built.status == 0, "\(commands[1]) failed:\n\(built.output)\n\(built.errorOutput)")
        let ran = try CLI.run(try plugboardArguments(commands[2]), workingDirectory: root.path)
        #expect(ran.status == 0, "\(ran.output)\n\(ran.errorOutput)")
        #expect(ran.output.contains("open-url hello://world → handled by com.example.hello"), "\(ran.output)")
        #expect(CLI.pluginLogs(ran.output).filter { $0.hasPrefix("com.example.hello: ") }
                    == ["launched", "open world", "terminating"].map { "com.example.hello: \($0)" }, "\(ran.output)")
    }

    @Test func idAndSDKGoWhereTheReadmeSays() throws {
        let root = try TemporaryDirectory("plugboard-new-options")
        defer { root.remove() }
        let result = try CLI.run(["new", "deep-links", "--lang", "c", "--dir", "plugin", "--id", "org.acme.links",
                                  "--sdk", TestPaths.packageRoot.path], workingDirectory: root.path)
        try #require(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let makefile = try String(contentsOfFile: root.file("plugin/Makefile"), encoding: .utf8)
        let sdk = try #require(realpath(TestPaths.packageRoot.path, nil).map { String(cString: $0) })
        #expect(makefile.contains("\nPLUGBOARD_INCLUDE ?= \(sdk)/include\n"), "\(makefile)")
        let source = try String(contentsOfFile: root.file("plugin/deep-links.c"), encoding: .utf8)
        #expect(source.contains(#"#define PLUGIN_ID "org.acme.links""#) && source.contains(#"#define SCHEME "deep-links://""#))
    }

    /// An empty folder is filled, not replaced: it keeps its inode and mode, so a shell standing in
    /// it (`--dir .`) stays in the project.
    @Test(arguments: ["empty", "."])
    func anEmptyFolderIsFilled(dir: String) throws {
        let root = try TemporaryDirectory("plugboard-new-empty")
        defer { root.remove() }
        let folder = root.file("empty")
        #expect(mkdir(folder, 0o700) == 0 && chmod(folder, 0o2770) == 0)
        var before = stat()
        #expect(stat(folder, &before) == 0)
        let result = try CLI.run(["new", "hello", "--lang", "rust", "--dir", dir], workingDirectory: dir == "." ? folder : root.path)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(tree(root.path) == ["empty", "empty/.gitignore", "empty/Cargo.toml", "empty/README.md", "empty/src", "empty/src/lib.rs"])
        var after = stat()
        #expect(stat(folder, &after) == 0)
        #expect(after.st_ino == before.st_ino && after.st_mode == before.st_mode)
    }

    /// A symbolic link to an empty folder stands for the folder: the project goes into it, and the
    /// link stays a link.
    @Test func aLinkToAnEmptyFolderFillsTheFolder() throws {
        let root = try TemporaryDirectory("plugboard-new-link")
        defer { root.remove() }
        let folder = root.file("real")
        #expect(mkdir(folder, 0o755) == 0 && symlink(folder, root.file("link")) == 0)
        let result = try CLI.run(["new", "hello", "--lang", "c", "--dir", "link"], workingDirectory: root.path)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(FileManager.default.fileExists(atPath: folder + "/Makefile"), "\(tree(root.path))")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: root.file("link"))) == folder)
    }

    /// Bad input: a usage error (64) whose message names the thing and the cause, and nothing written.
    @Test(arguments: [
        (["Hello", "--lang", "c"], #"NAME "Hello": the name contains "H"; only lowercase letters a-z, digits and '-' are allowed"#),
        (["2fa", "--lang", "c"], #"NAME "2fa": the name starts with "2"; it must start with a letter a-z"#),
        (["launch", "--lang", "swift"], #"NAME "launch": the name would make the plugin type LaunchPlugin"#),
        (["hello", "--lang", "c", "--id", "nodots"], #"--id "nodots": the id is not reverse-DNS"#),
        (["hello", "--lang", "c", "--id", "com.example.a b"], #"--id "com.example.a b": the id contains " ""#),
        (["hello", "--lang", "go"], "The value 'go' is invalid for '--lang <c|cpp|rust|swift>'"),
        (["hello", "--lang", "c", "--dir", "taken"], "taken exists and is not empty; choose another --dir"),
        (["hello", "--lang", "c", "--dir", "taken/keep.txt"], "taken/keep.txt exists and is not a folder"),
        (["hello", "--lang", "c", "--dir", "missing/hello"], "missing, where "),
        (["hello", "--lang", "rust", "--sdk", "taken"], "taken\" does not hold the Rust SDK (plugins/rust-sdk/Cargo.toml)"),
        (["hello", "--lang", "swift", "--sdk", "nowhere"], #"--sdk "nowhere": No such file or directory"#),
    ])
    func badInputIsAUsageErrorAndWritesNothing(arguments: [String], message: String) throws {
        let root = try TemporaryDirectory("plugboard-new-refused")
        defer { root.remove() }
        try FileManager.default.createDirectory(atPath: root.file("taken"), withIntermediateDirectories: false)
        try root.write("taken/keep.txt", "mine")
        let result = try CLI.run(["new"] + arguments, workingDirectory: root.path)
        #expect(result.status == 64, "\(result.output)\n\(result.errorOutput)")
        #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
        #expect(tree(root.path) == ["taken", "taken/keep.txt"])
        #expect(try String(contentsOfFile: root.file("taken/keep.txt"), encoding: .utf8) == "mine")
    }

    @Test func anSDKPathABuildFileCannotHoldIsAUsageError() throws {
        let root = try TemporaryDirectory("plugboard-new-sdk-path")
        defer { root.remove() }
        try FileManager.default.createDirectory(atPath: root.file("sdk#1/include"), withIntermediateDirectories: true)
        try root.write("sdk#1/include/plugboard.h", "")
        let result = try CLI.run(["new", "hello", "--lang", "c", "--sdk", "sdk#1"], workingDirectory: root.path)
        #expect(result.status == 64, "\(result.output)\n\(result.errorOutput)")
        #expect(result.errorOutput.contains(##"sdk#1" contains "#", which a generated build file cannot hold"##), "\(result.errorOutput)")
        #expect(tree(root.path) == ["sdk#1", "sdk#1/include", "sdk#1/include/plugboard.h"])
    }

    /// A folder where nothing can be created (procfs): exit 1, one line naming the operation, the folder and the cause.
    @Test func aProjectThatCannotBeWrittenExitsOneWithTheCause() throws {
        let result = try CLI.run(["new", "hello", "--lang", "c", "--dir", "/proc/hello"])
        #expect(result.status == 1, "\(result.output)\n\(result.errorOutput)")
        #expect(result.errorOutput.hasPrefix("plugboard new: cannot create a temporary folder in /proc: "), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: "/proc/hello"))
    }

    @Test func anSDKNeitherGivenNorAboveTheExecutableIsAUsageErrorThatSaysHowToGiveIt() throws {
        let root = try TemporaryDirectory("plugboard-new-no-sdk")
        defer { root.remove() }
        let binary = root.file("plugboard")
        // Copied by cp, so no file descriptor open for writing on the copy is inherited by a child
        // another test starts meanwhile (which would make exec fail with ETXTBSY).
        let copied = try PlugboardTests.run("/bin/cp", [try CLI.binary(), binary])
        try #require(copied.status == 0, "\(copied.errorOutput)")
        var environment = TestPaths.hermeticEnvironment
        environment["PLUGBOARD_SDK"] = nil
        let result = try PlugboardTests.run(binary, ["new", "hello", "--lang", "c"], environment: environment, workingDirectory: root.path)
        #expect(result.status == 64, "\(result.output)\n\(result.errorOutput)")
        #expect(result.errorOutput.contains("that holds the C SDK (include/plugboard.h); pass --sdk DIR (a Plugboard checkout) or set PLUGBOARD_SDK"),
                "\(result.errorOutput)")
        #expect(tree(root.path) == ["plugboard"])
    }
}
