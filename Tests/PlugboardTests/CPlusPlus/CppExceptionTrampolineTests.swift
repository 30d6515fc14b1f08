import Foundation
import Plugboard
@testable import plugboard
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

    private func run(_ kind: Kind, extra: [String] = [], _ events: [String]) throws -> (lines: [RunLine], status: Int32) {
        let workspace = try Workspace("cpp-throw")
        defer { workspace.remove() }
        try PluginCompiler.compile(TestPaths.fixtures + "/throwing_cpp_plugin.cpp", to: workspace.plugins + "/thrower.so",
                                   flags: (kind.definitions + extra).map { "-D" + $0 }, cplusplus: true)
        let result = try CLI.run(["run", "--isolation", kind.isolation, "--json", "--plugin-dir", workspace.plugins,
                                  "--container", workspace.root.file("container"), "--events", try workspace.events(events)])
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)\n\(result.errorOutput)")
        return (lines, result.status)
    }

    private func answers(_ lines: [RunLine], _ event: String) -> [EventAnswer] {
        lines.events(named: event).map(\.answer)
    }

    private func errors(_ lines: [RunLine]) -> [String] {
        lines.compactMap(\.log).filter { $0.plugin == Self.id && $0.level == .error }.map(\.message)
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
        #expect(lines.last?.exitCode != nil)
        #expect(answers(lines, "open-url") == [.bool(false)])
        #expect(answers(lines, "continue-user-activity") == [.bool(false)])
        #expect(answers(lines, "remote-notification") == [.fetch(.failed), .fetch(.newData)])
        #expect(lines.allSatisfy { $0.event?.failures.isEmpty ?? true }, "a caught exception is no failure")
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
        #expect(answers(lines, "will-finish-launching") == [.bool(false)])
        #expect(answers(lines, "open-url").isEmpty, "nothing is delivered after a veto but will-terminate")
        #expect(errors(lines).first == kind.text("will_finish_launching") + "; answered false (a veto)")
        #expect(lines.last?.exitCode != nil)
    }

    @Test(arguments: kinds)
    func aConstructorThatThrowsFailsTheLoadWithItsReason(kind: Kind) throws {
        let (lines, _) = try run(kind, extra: ["THROW_IN_CONSTRUCTOR"], [])
        let load = try #require(lines.lazy.compactMap(\.load).first)
        #expect(load.status == .failed)
        let expected = kind.text("the constructor of \(Self.id)", thrownBy: "Thrower()") + "; answered false from register_plugins"
        #expect(load.failure?.message == "register_plugins returned false: " + expected)
    }
}
