import Foundation
import Plugboard
@testable import plugboard
import Testing

/// A library whose `register_plugins` returns false because `add_plugin` refused its plugin:
/// the load report names both, in process and in a worker, and the human report escapes the id.
@Suite struct RegistrationRefusalTests {
    @Test(arguments: ["none", "process"])
    func theReportNamesTheFalseReturnAndTheRefusal(isolation: String) throws {
        let workspace = try Workspace("register-refused")
        defer { workspace.remove() }
        try workspace.plugin("app.so", EndToEndRunTests.app)
        // The hostile fixture's register_plugins returns whether add_plugin said PB_OK.
        let library = try PluginCompiler.hostile("bad-id.so", in: workspace.plugins, [#"HOSTILE_ID="com.example.\u202Eevil""#])
        let arguments = ["run", "--isolation", isolation, "--plugin-dir", workspace.plugins, "--container", workspace.root.file("box")]

        let json = try CLI.run(arguments + ["--json"])
        #expect(json.status == 4, "\(json.output)\n\(json.errorOutput)")
        let lines = try #require(CLI.runLines(json.output), "not run lines:\n\(json.output)")
        let load = try #require(lines.load(of: library), "\(json.output)")
        let failure = load.failure
        #expect(failure?.stage == .register, "\(load)")
        let message = failure?.message ?? ""
        #expect(message.hasPrefix("register_plugins returned false (the library logged no error to say why); add_plugin refused: "),
                "\(message)")
        #expect(message.contains("com.example.\u{202e}evil") && message.contains("only letters, digits, '-', '_' and '.' are allowed"),
                "\(message)")

        let human = try CLI.run(arguments)
        #expect(human.status == 4, "\(human.output)\n\(human.errorOutput)")
        let line = try #require(human.output.split(separator: "\n").first { $0.hasPrefix("FAILED") && $0.contains(library) },
                                "\(human.output)")
        #expect(line.contains("register_plugins returned false") && line.contains(#"add_plugin refused: "#)
                    && line.contains(#"com.example.\u{202e}evil"#) && !line.unicodeScalars.contains("\u{202e}"), "\(line)")
    }

    /// A name or a version past 255 bytes (the id's limit), as the host holds it (bytes that are
    /// not UTF-8 repaired), refuses the plugin, naming which, in process and in a worker; 255
    /// bytes of each load.
    @Test(arguments: ["none", "process"])
    func aNameOrVersionPastTheLimitRefusesThePlugin(isolation: String) throws {
        let workspace = try Workspace("long-descriptor-\(isolation)")
        defer { workspace.remove() }
        let fits = try workspace.plugin("fits.so", [#"FIX_ID="com.example.fits""#, "FIX_NAME_BYTES=255", "FIX_VERSION_BYTES=255"])
        let longName = try workspace.plugin("long-name.so", [#"FIX_ID="com.example.name""#, "FIX_NAME_BYTES=256"])
        let longVersion = try workspace.plugin("long-version.so", [#"FIX_ID="com.example.version""#, "FIX_VERSION_BYTES=4000"])
        // 255 bytes that are not UTF-8 grow past the limit as they are repaired (3 bytes each).
        let repaired = try workspace.plugin("repaired.so", [#"FIX_ID="com.example.repaired""#, "FIX_NAME_BYTES=255", "FIX_NAME_BYTE=0xFF"])
        let result = try CLI.run(["run", "--json", "--isolation", isolation, "--plugin-dir", workspace.plugins,
                                  "--container", workspace.root.file("box")])
        #expect(result.status == 4, "\(result.output)\n\(result.errorOutput)")
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        #expect(lines.load(of: fits)?.status == .loaded, "\(result.output)")
        for (path, words) in [(longName, "plugin 'com.example.name': the name is longer than 255 bytes, the most allowed"),
                              (longVersion, "plugin 'com.example.version': the version is longer than 255 bytes, the most allowed"),
                              (repaired, "plugin 'com.example.repaired': the name is longer than 255 bytes, the most allowed")] {
            let load = lines.load(of: path)
            #expect(load?.status == .failed && load?.failure?.message.contains(words) == true, "\(path): \(String(describing: load))")
        }
    }
}
