import Foundation
import Plugboard
@testable import plugboard
import Testing

/// Issue 8: plugins written in C, C++, Rust and Swift, from one folder, in one `plugboard run`:
/// the bundled examples, each built the way its README says, sent every kind of event in both
/// isolation modes. Each plugin's answers and log lines are checked through `--json`.
@Suite struct AllLanguagesTests {
    /// The C examples (plugins/<name>/<one .c file>).
    static let cExamples = ["deeplink-router", "notification-logger", "app-lifecycle-pair", "url-history"]

    /// Every scriptable event kind, in an order that tells the plugins apart; launch and
    /// termination are sent by `run` itself.
    static let events = [
        #"{"event":"open-url","url":"myapp://item/42"}"#,
        #"{"event":"open-url","url":"rustapp://café/7"}"#,  // not ASCII: the Rust SDK validates it
        #"{"event":"open-url","url":"swiftapp://item/9"}"#,
        #"{"event":"open-url","url":"https://example.com/"}"#,
        #"{"event":"continue-user-activity","type":"com.example.swift-links.show-history","userInfo":{}}"#,
        #"{"event":"continue-user-activity","type":"com.example.elsewhere","userInfo":{}}"#,
        #"{"event":"register-token","token":"a1b2c3d4"}"#,
        #"{"event":"register-failed","error":"no network"}"#,
        #"{"event":"remote-notification","userInfo":{"theme":"sepia"}}"#,
        #"{"event":"remote-notification","userInfo":{"aps":{"content-available":1}}}"#,
        #"{"event":"remote-notification","userInfo":{"aps":{}}}"#,
        #"{"event":"memory-warning"}"#,
        #"{"event":"protected-data-will-become-unavailable"}"#,
        #"{"event":"protected-data-did-become-available"}"#,
        #"{"event":"will-resign-active"}"#,
        #"{"event":"did-enter-background"}"#,
        #"{"event":"will-enter-foreground"}"#,
        #"{"event":"did-become-active"}"#,
    ]

    /// Each plugin's log lines, in order, for `events`.
    static let expectedLogs: [String: [String]] = [
        "com.example.launch-guard": [
            "launch options {}: no safe mode, launch allowed",
            "protected data available -> locked (change 1): closing protected files",
            "protected data locked -> available (change 2)",
        ],
        "com.example.session-tracker": [
            "session 1 started, state inactive",
            "state inactive -> inactive (transition 1)",
            "state inactive -> background (transition 2)",
            "state background -> foreground (transition 3)",
            "state foreground -> active (transition 4)",
            "session over after 4 transitions (1 active, 1 resign, 1 background, 1 foreground), last state active",
        ],
        "com.example.url-history": [
            "no history yet",
            "recorded myapp://item/42", "recorded rustapp://café/7", "recorded swiftapp://item/9", "recorded https://example.com/",
        ],
        "com.example.deeplink-router": ["ready to route myapp:// links", "route item 42", "shutting down; no more myapp:// links"],
        "com.example.notification-logger": [
            "registered, device token a1b2c3d4 (4 bytes)",
            "registration failed: no network",
            #"notification received: {"theme":"sepia"}"#, "nothing to fetch: answering no data",
            #"notification received: {"aps":{"content-available":1}}"#, "content-available: answering new data",
            #"notification received: {"aps":{}}"#, "nothing to fetch: answering no data",
            "memory warning: nothing cached, nothing to free",
            "terminating",
        ],
        "com.example.theme-switcher": ["theme light"],
        "com.example.rust-links": ["open café/7", "opened 1 link(s)"],
        "com.example.swift-links": ["open item/9", "history: item/9", "remembered 1 link(s)"],
    ]

    /// Builds every example into `workspace.plugins`: the C ones and the C++ one with cc and c++,
    /// the Rust one with cargo, the Swift one by SwiftPM (copied).
    private func buildExamples(into workspace: Workspace) throws {
        let plugins = TestPaths.packageRoot.appendingPathComponent("plugins").path
        for name in Self.cExamples {
            let sources = try FileManager.default.contentsOfDirectory(atPath: plugins + "/" + name).filter { $0.hasSuffix(".c") }
            let source = try #require(sources.first, "plugins/\(name) has no C file")
            try PluginCompiler.compile(plugins + "/\(name)/\(source)", to: workspace.plugins + "/\(name).so")
        }
        try PluginCompiler.compile(plugins + "/theme-switcher/theme_switcher.cpp", to: workspace.plugins + "/theme-switcher.so",
                                   cplusplus: true)
        try Cargo.buildPlugin("plugins/rust-example", in: workspace.root, into: workspace.plugins)
        try SwiftPackageLibraries.copy(SwiftPackageLibraries.example, into: workspace.plugins)
    }

    @Test func everyLanguageAnswersEveryEventInOneRunInBothIsolationModes() throws {
        let workspace = try Workspace("all-languages")
        defer { workspace.remove() }
        try buildExamples(into: workspace)
        let events = try workspace.events(Self.events)
        for isolation in ["process", "none"] {
            let container = workspace.root.file("container-" + isolation)
            let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--isolation", isolation, "--json",
                                      "--container", container, "--events", events])
            #expect(result.status == 0, "\(isolation): \(result.output)\n\(result.errorOutput)")
            let lines = try #require(CLI.runLines(result.output), "\(isolation): a line is not a run line:\n\(result.output)")
            check(lines, isolation: isolation)
            let history = try String(contentsOfFile: container + "/Documents/swift-links.txt", encoding: .utf8)
            #expect(history == "item/9\n", "\(isolation)")
            let theme = try String(contentsOfFile: container + "/Library/theme", encoding: .utf8)
            #expect(theme == "light", "\(isolation): the C++ plugin saved its theme at termination")
        }
    }

    /// Checks the loads, every event's answer and calls, and each plugin's log lines.
    private func check(_ lines: [RunLine], isolation: String) {
        let loads = lines.compactMap(\.load)
        #expect(loads.count == 7 && loads.allSatisfy { $0.status == .loaded }, "\(isolation): \(loads)")
        #expect(lines.allSatisfy { $0.output == nil && $0.inputError == nil }, "\(isolation): \(lines)")

        let reports = lines.events
        #expect(reports.allSatisfy { $0.failures.isEmpty }, "\(isolation): \(reports)")
        /// Each report of `event` as "answer: plugin=answer, …" (calls in dispatch order; a broadcast answers null).
        func summary(_ event: String) -> [String] {
            reports.filter { $0.event.name == event }.map { report in
                let calls = report.calls.map { "\($0.plugin)=\(text($0.answer))" }
                return "\(text(report.answer)): " + calls.joined(separator: ", ")
            }
        }
        let launchCalls = "org.plugboard.files=true, com.example.launch-guard=true, com.example.url-history=true, "
            + "com.example.deeplink-router=true, com.example.session-tracker=true, com.example.theme-switcher=true"
        #expect(summary("will-finish-launching") == ["true: " + launchCalls], "\(isolation)")
        #expect(summary("did-finish-launching") == ["true: " + launchCalls], "\(isolation)")
        #expect(summary("open-url") == [
            "true: com.example.url-history=false, com.example.deeplink-router=true",
            "true: com.example.url-history=false, com.example.deeplink-router=false, com.example.swift-links=false, com.example.rust-links=true",
            "true: com.example.url-history=false, com.example.deeplink-router=false, com.example.swift-links=true",
            "false: com.example.url-history=false, com.example.deeplink-router=false, com.example.swift-links=false, "
                + "com.example.rust-links=false, com.example.theme-switcher=false",
        ], "\(isolation)")
        #expect(summary("continue-user-activity") == ["true: com.example.swift-links=true", "false: com.example.swift-links=false"],
                "\(isolation)")
        let notificationPlugins = "com.example.notification-logger=null, com.example.theme-switcher=null"
        #expect(summary("register-token") == ["null: " + notificationPlugins], "\(isolation)")
        #expect(summary("register-failed") == ["null: " + notificationPlugins], "\(isolation)")
        #expect(summary("remote-notification") == [
            "new-data: com.example.notification-logger=no-data, com.example.theme-switcher=new-data",
            "new-data: com.example.notification-logger=new-data, com.example.theme-switcher=no-data",
            "no-data: com.example.notification-logger=no-data, com.example.theme-switcher=no-data",
        ], "\(isolation)")
        #expect(summary("memory-warning") == ["null: com.example.notification-logger=null"], "\(isolation)")
        for event in ["protected-data-will-become-unavailable", "protected-data-did-become-available"] {
            #expect(summary(event) == ["null: com.example.launch-guard=null"], "\(isolation) \(event)")
        }
        for event in ["will-resign-active", "did-enter-background", "will-enter-foreground", "did-become-active"] {
            #expect(summary(event) == ["null: com.example.session-tracker=null"], "\(isolation) \(event)")
        }
        #expect(summary("will-terminate") == [
            "null: com.example.theme-switcher=null, com.example.session-tracker=null, com.example.rust-links=null, "
                + "com.example.notification-logger=null, com.example.swift-links=null, "
                + "com.example.deeplink-router=null, org.plugboard.files=null",
        ], "\(isolation)")

        var logs: [String: [String]] = [:]
        for record in lines.compactMap(\.log) {
            logs[record.plugin ?? "(library)", default: []].append(record.message)
        }
        #expect(logs == Self.expectedLogs, "\(isolation)")
    }

    /// An event's answer as its JSON reads: a fetch result as it is, a Bool as true or false, a broadcast's null as null.
    private func text(_ answer: EventAnswer) -> String {
        switch answer {
        case .none: "null"
        case .bool(let value): String(value)
        case .fetch(let result): result.rawValue
        }
    }

    /// A plugin's answer as text: a broadcast call's null as null, others as reports show them.
    private func text(_ answer: PluginAnswer) -> String {
        answer == .returned ? "null" : answer.description
    }
}
