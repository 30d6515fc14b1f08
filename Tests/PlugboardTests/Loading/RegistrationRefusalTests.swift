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
}
