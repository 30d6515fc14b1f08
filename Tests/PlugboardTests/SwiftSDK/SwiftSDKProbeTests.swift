import Foundation
import Plugboard
@testable import plugboard
import Testing

/// The Swift SDK beyond the example, through the probe plugin (Fixtures/SwiftPlugins/swift-sdk-probe,
/// libSwiftSDKProbePlugin.so) and the real `plugboard` binary, in both isolation modes.
@Suite struct SwiftSDKProbeTests {
    static let isolations = ["process", "none"]
    static let pluginID = "com.example.swift-sdk-probe"

    /// `plugboard run --json` over a folder holding the probe, with `events`; the workspace, the
    /// probe's path, the exit status and the lines.
    private func run(_ label: String, isolation: String, events: [String], environment: [String: String] = [:],
                     prepare: (Workspace) throws -> Void = { _ in })
        throws -> (workspace: Workspace, library: String, status: Int32, lines: [RunLine]) {
        let workspace = try Workspace(label)
        try prepare(workspace)
        let library = try SwiftPackageLibraries.copy(SwiftPackageLibraries.probe, into: workspace.plugins)
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--isolation", isolation, "--json",
                                  "--container", workspace.root.file("container"), "--events", try workspace.events(events)]
                                  + workspace.passingEnvironment(Array(environment.keys), isolation: isolation),
                                 environment: environment)
        let lines = try #require(CLI.runLines(result.output), "a line is not a run line:\n\(result.output)\n\(result.errorOutput)")
        return (workspace, library, result.status, lines)
    }

    private func probeLogs(_ lines: [RunLine]) -> [String] {
        lines.logs(of: Self.pluginID)
    }

    @Test(arguments: isolations) func aNotificationIsAnsweredThroughTheCompletionNowOrLaterFromAnotherThread(isolation: String) throws {
        let run = try run("swift-sdk-completion", isolation: isolation, events: [
            #"{"event":"remote-notification","userInfo":{"answer":"now"}}"#,
            #"{"event":"remote-notification","userInfo":{"answer":"later"}}"#,
        ])
        defer { run.workspace.remove() }
        #expect(run.status == 0, "\(run.lines)")
        let notifications = run.lines.events(named: "remote-notification")
        // "later" is answered 100 ms after the callback returned, from a task's thread; the default
        // deadline is 5 s, so only an answer that never crossed would make it no-data.
        #expect(notifications.map(\.answer) == [.fetch(.noData), .fetch(.newData)], "\(notifications)")
        #expect(notifications.allSatisfy { $0.failures.isEmpty }, "\(notifications)")
        let answers = notifications.compactMap { $0.calls.first?.answer }
        #expect(answers == [.fetch(.noData), .fetch(.newData)], "\(notifications)")
        #expect(!run.lines.contains { $0.log?.level == .warning }, "\(run.lines)")
    }

    /// Dispatch given more work than its pool has threads: libdispatch watches its pool by reading
    /// /proc/TID/stat of each pool thread and ends the process when it cannot, which the worker's
    /// sandbox (its own /proc entry only) made it do; the worker's `open` finds the file under
    /// /proc/self/task.
    @Test(arguments: isolations) func dispatchWorkBeyondItsPoolRunsInTheSandbox(isolation: String) throws {
        let run = try run("swift-sdk-dispatch", isolation: isolation, events: [#"{"event":"open-url","url":"probe://dispatch"}"#])
        defer { run.workspace.remove() }
        #expect(run.status == 0, "\(run.lines)")
        #expect(probeLogs(run.lines) == ["dispatch: all done"], "\(run.lines)")
    }

    @Test(arguments: isolations) func theBusPostsAndObservesThroughTheSDK(isolation: String) throws {
        let run = try run("swift-sdk-bus", isolation: isolation, events: [
            #"{"event":"open-url","url":"probe://bus/observe"}"#,
            #"{"event":"post","name":"com.example.probe.news","payload":{"from":"script"}}"#,
            #"{"event":"open-url","url":"probe://bus/post"}"#,
        ])
        defer { run.workspace.remove() }
        #expect(run.status == 0, "\(run.lines)")
        #expect(probeLogs(run.lines) == [
            "observe: ok",
            #"bus: com.example.probe.news {"from":"script"} from plugboard"#,
            "post: ok",
            "post: the notification name 'not a name' is not valid: the name contains \" \"; only letters, digits, '-', '_' and '.' are allowed; refused",
            "post failed: post not a name: refused with status -1 (the host's log says why)",
            #"bus: com.example.probe.news {"from":"probe"} from com.example.swift-sdk-probe"#,
        ], "\(run.lines)")
    }

    @Test(arguments: isolations) func aFactoryThatThrowsRefusesTheLibraryWithTheErrorInTheReportAndTheLog(isolation: String) throws {
        let run = try run("swift-sdk-throw", isolation: isolation, events: [], environment: ["SWIFT_SDK_PROBE_FACTORY": "throw"])
        defer { run.workspace.remove() }
        #expect(run.status == 3, "no plugin could be loaded: \(run.lines)")
        let sentence = "the plugins could not be made: the probe was told to refuse the library"
        let load = try #require(run.lines.lazy.compactMap(\.load).first)
        #expect(load.status == .failed && load.path == run.library, "\(load)")
        #expect(load.failure?.stage == .register, "\(load)")
        #expect(load.failure?.message == "register_plugins returned false: " + sentence, "\(load)")
        let log = run.lines.compactMap(\.log).first { $0.source == run.library }
        #expect(log?.level == .error && log?.message == sentence, "\(run.lines)")
    }

    @Test(arguments: isolations) func everyFilesCallReachesTheContainer(isolation: String) throws {
        let run = try run("swift-sdk-files", isolation: isolation, events: [#"{"event":"open-url","url":"probe://files"}"#])
        defer { run.workspace.remove() }
        #expect(run.status == 0, "\(run.lines)")
        let escaped = #"say "hi" \ é 😀.txt"#
        #expect(probeLogs(run.lines) == [
            "write: ok",
            "write: ok",
            "list: a.txt:file,\(escaped):file",
            "attributes: file 5 bytes, modified true",
            "copy: ok",
            "copy again failed: copy 'copies/a.txt' in Library: destination exists (File exists)",
            "rename: ok",
            "move: ok",
            "change extension: Library/copies/a.md",
            "list: a.md:file",
            "remove: ok",
            "remove: ok",
            "list: Inbox:directory",
        ], "\(run.lines)")
        let container = run.workspace.root.file("container")
        #expect(try String(contentsOfFile: container + "/Library/copies/a.md", encoding: .utf8) == "hello")
        #expect(try String(contentsOfFile: container + "/Library/moved/b.txt", encoding: .utf8) == "hello")
        #expect(!FileManager.default.fileExists(atPath: container + "/Documents/probe"))
    }

    /// Names made outside the files service (control characters included) come back from
    /// `list` exactly: the SDK decodes every escape of the host's JSON.
    @Test(arguments: isolations) func listDecodesEveryNameTheHostEscapes(isolation: String) throws {
        let names = ["bell\u{7}", "emoji😀é", "line\nbreak", #"quote"back\slash"#, "tab\there"]
        let run = try run("swift-sdk-list", isolation: isolation, events: [#"{"event":"open-url","url":"probe://list/Documents/odd"}"#]) {
            let folder = $0.root.file("container/Documents/odd")
            try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "sub")
            for name in names { #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: nil)) }
        }
        defer { run.workspace.remove() }
        #expect(run.status == 0, "\(run.lines)")
        let entries = names.map { "[\($0)]:file" } + ["[link]:symbolic-link", "[sub]:directory"]
        #expect(probeLogs(run.lines) == ["list: " + entries.sorted().joined(separator: ",")], "\(run.lines)")
    }
}
