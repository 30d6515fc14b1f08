import Foundation
import Testing

/// The trampolines of <plugboard/cpp/plugin.hpp>: a plugin class that throws in
/// each kind of callback (Fixtures/throwing_cpp_plugin.cpp) leaves the host
/// running; each exception is logged as the plugin with its text, and the
/// event gets the documented fail-closed answer.
@Suite struct CppExceptionTrampolineTests {
    private static let id = "com.example.thrower"

    /// What the fixture throws (std::runtime_error, or an int with THROW_NON_STD) and the isolation mode.
    struct Kind: CustomTestStringConvertible, Sendable {
        let definitions: [String]
        let isolation: String
        private var throwsStandard: Bool { definitions.isEmpty }
        var testDescription: String { "\(throwsStandard ? "std::runtime_error" : "int"), --isolation \(isolation)" }

        /// The log text for an exception in `event`, thrown by the fixture's `boom(thrower)` (`event` by default).
        func text(_ event: String, thrownBy thrower: String? = nil) -> String {
            throwsStandard ? "exception in \(event): boom in \(thrower ?? event)" : "unknown exception in \(event)"
        }
    }

    static let kinds: [Kind] = ["none", "process"].flatMap { isolation in
        [Kind(definitions: [], isolation: isolation), Kind(definitions: ["THROW_NON_STD"], isolation: isolation)]
    }

    private func run(_ kind: Kind, extra: [String] = [], _ events: [String]) throws -> (lines: [[String: Any]], status: Int32) {
        let workspace = try Workspace("cpp-throw")
        defer { workspace.remove() }
        try PluginCompiler.compile(TestPaths.fixtures + "/throwing_cpp_plugin.cpp", to: workspace.plugins + "/thrower.so",
                                   flags: (kind.definitions + extra).map { "-D" + $0 }, cplusplus: true)
        let result = try CLI.run(["run", "--isolation", kind.isolation, "--json", "--plugin-dir", workspace.plugins,
                                  "--container", workspace.root.file("container"), "--events", try workspace.events(events)])
        let lines = try #require(CLI.jsonLines(result.output), "not JSON lines:\n\(result.output)\n\(result.errorOutput)")
        return (lines, result.status)
    }

    private func answers(_ lines: [[String: Any]], _ event: String) -> [Any?] {
        lines.filter { $0.string("type") == "event" && $0.string("event") == event }.map { $0["answer"] }
    }

    private func errors(_ lines: [[String: Any]]) -> [String] {
        lines.filter { $0.string("type") == "log" && $0.string("plugin") == Self.id && $0.string("level") == "error" }
            .compactMap { $0.string("message") }
    }

    @Test(arguments: kinds)
    func everyCallbackThatThrowsIsLoggedAndAnsweredFailClosed(kind: Kind) throws {
        let (lines, status) = try run(kind, [
            #"{"event":"open-url","url":"myapp://x"}"#,
            #"{"event":"continue-user-activity","type":"com.example.view","userInfo":{}}"#,
            #"{"event":"register-token","token":"a1b2"}"#,
            #"{"event":"remote-notification","userInfo":{}}"#,
            #"{"event":"remote-notification","userInfo":{"answer-first":true}}"#,
            #"{"event":"memory-warning"}"#,
            #"{"event":"did-become-active"}"#,
        ])
        #expect(status == 0)
        #expect(lines.last?.string("type") == "exit")
        #expect(answers(lines, "open-url").map { $0 as? Bool } == [false])
        #expect(answers(lines, "continue-user-activity").map { $0 as? Bool } == [false])
        #expect(answers(lines, "remote-notification").map { $0 as? String } == ["failed", "new-data"])
        #expect(lines.allSatisfy { ($0.objects("failures") ?? []).isEmpty }, "a caught exception is no failure")
        #expect(errors(lines) == [
            kind.text("open_url") + "; answered not handled",
            kind.text("continue_user_activity") + "; answered not handled",
            kind.text("did_register_for_remote_notifications") + "; answered nothing",
            kind.text("did_receive_remote_notification") + "; answered failed",
            kind.text("did_receive_remote_notification") + "; answered nothing (already answered)",
            kind.text("did_receive_memory_warning") + "; answered nothing",
            kind.text("did_become_active") + "; answered nothing",
            kind.text("will_terminate") + "; answered nothing",
        ])
    }

    @Test(arguments: kinds)
    func aLaunchCallbackThatThrowsVetoes(kind: Kind) throws {
        let (lines, _) = try run(kind, extra: ["THROW_IN_LAUNCH"], [#"{"event":"open-url","url":"myapp://x"}"#])
        #expect(answers(lines, "will-finish-launching").map { $0 as? Bool } == [false])
        #expect(answers(lines, "open-url").isEmpty, "nothing is delivered after a veto but will-terminate")
        #expect(errors(lines).first == kind.text("will_finish_launching") + "; answered false (a veto)")
        #expect(lines.last?.string("type") == "exit")
    }

    @Test(arguments: kinds)
    func aConstructorThatThrowsFailsTheLoadWithItsReason(kind: Kind) throws {
        let (lines, _) = try run(kind, extra: ["THROW_IN_CONSTRUCTOR"], [])
        let load = try #require(lines.first { $0.string("type") == "load" })
        #expect(load.string("status") == "failed")
        let expected = kind.text("the constructor of \(Self.id)", thrownBy: "Thrower()") + "; answered false from register_plugins"
        #expect(load.object("failure")?.string("message") == "register_plugins returned false: " + expected)
    }
}
