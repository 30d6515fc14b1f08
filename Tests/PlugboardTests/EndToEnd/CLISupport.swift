import Foundation
import Glibc
import Testing

/// Driving the real `plugboard` binary.
enum CLI {
    /// The binary, required to be found (a relative "plugboard" would run whatever PATH has).
    static func binary() throws -> String {
        let path = TestPaths.plugboard
        try #require(path.hasPrefix("/"), "the plugboard binary was not found next to the test bundle")
        return path
    }

    /// Runs `plugboard arguments…` with the tests' hermetic environment minus `PLUGBOARD_PLUGIN_PATH`,
    /// plus `environment`, in `workingDirectory` (the test's when nil); records an issue when
    /// any process it started (a worker, a plugin's child) is still there afterwards.
    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:],
                    workingDirectory: String? = nil) throws -> ProcessResult {
        let mark = LeftoverProcesses.mark()
        let result = try PlugboardTests.run(try binary(), arguments, input: input,
                                            environment: self.environment(adding: mark.merging(environment) { $1 }),
                                            workingDirectory: workingDirectory)
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid), "plugboard \(arguments.first ?? "") left processes behind")
        return result
    }

    /// Runs `plugboard arguments…` like `run(_:)`, as the last argument of `launcher` (a program and
    /// its first arguments, which changes what the host may do, then executes the rest).
    static func run(through launcher: [String], _ arguments: [String]) throws -> ProcessResult {
        let mark = LeftoverProcesses.mark()
        let result = try PlugboardTests.run(launcher[0], Array(launcher.dropFirst()) + [try binary()] + arguments,
                                            environment: self.environment(adding: mark))
        #expect(LeftoverProcesses.noneLeft(mark, host: result.pid), "plugboard \(arguments.first ?? "") left processes behind")
        return result
    }

    /// Runs `plugboard arguments…` like `run(_:)`, through `bash -c` after `setup`: shell
    /// code such as a redirection of fd 1 and 2 (bash takes fds above 9), which may use the
    /// descriptors `passing` hands the shell (its number: this process's descriptor).
    static func run(afterShell setup: String, _ arguments: [String], environment: [String: String] = [:],
                    passing descriptors: [Int32: Int32] = [:]) throws -> ProcessResult {
        try PlugboardTests.run("/bin/bash", ["-c", setup + "\nexec \"$0\" \"$@\"", try binary()] + arguments,
                               environment: self.environment(adding: environment), passing: descriptors)
    }

    /// The tests' hermetic environment (a temporary XDG_DATA_HOME) minus `PLUGBOARD_PLUGIN_PATH`, plus `extra`.
    private static func environment(adding extra: [String: String]) -> [String: String] {
        var environment = TestPaths.hermeticEnvironment
        environment["PLUGBOARD_PLUGIN_PATH"] = nil
        environment.merge(extra) { $1 }
        return environment
    }

    /// The lines of `run` human output that are event reports ("name … → answer …"), as event names.
    static func eventNames(_ output: String) -> [String] {
        output.split(separator: "\n").filter { !$0.hasPrefix(" ") && $0.contains(" → ") }
            .map { String($0.prefix { $0 != " " }) }
    }

    /// The plugin log lines of `run` human output, as "id: message".
    static func pluginLogs(_ output: String) -> [String] {
        output.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  ["), let close = line.firstIndex(of: "]") else { return nil }
            let id = line[line.index(line.startIndex, offsetBy: 3)..<close]
            guard let colon = line[close...].range(of: ": ") else { return nil }
            return "\(id): \(line[colon.upperBound...])"
        }
    }

    /// The `libraries` of a `list --json` document.
    static func libraries(_ result: ProcessResult) throws -> [[String: Any]] {
        let document = try #require(jsonObject(result.output), "not a JSON document:\n\(result.output)\n\(result.errorOutput)")
        return try #require(document["libraries"] as? [[String: Any]], "no libraries:\n\(result.output)")
    }

    /// The documented `type`s of `run --json` lines (README and `run --help`).
    static let documentedLineTypes: Set<String> = ["load", "policy", "log", "output", "event", "post", "state", "note", "input-error",
                                                   "joined", "join-failed", "skipped", "reloaded", "reload-failed", "left", "restart-needed", "exit"]
}

extension [String: Any] {
    func string(_ key: String) -> String? { self[key] as? String }
    func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }
    func objects(_ key: String) -> [[String: Any]]? { self[key] as? [[String: Any]] }
    func int(_ key: String) -> Int? { (self[key] as? NSNumber)?.intValue }
}

/// A temporary folder with a `plugins` subfolder, removed at the end.
struct Workspace {
    let root: TemporaryDirectory
    let plugins: String

    init(_ label: String) throws {
        root = try TemporaryDirectory("plugboard-e2e-\(label)")
        plugins = root.file("plugins")
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: false)
    }

    /// Builds a fixture into `plugins` (or `directory`).
    @discardableResult
    func plugin(_ name: String, _ definitions: [String], in directory: String? = nil) throws -> String {
        try PluginCompiler.lenientFixture(name, in: directory ?? plugins, definitions)
    }

    /// Writes an events file and returns its path.
    func events(_ lines: [String], name: String = "events.jsonl") throws -> String {
        try root.write(name, lines.joined(separator: "\n") + "\n")
        return root.file(name)
    }

    func remove() { root.remove() }
}

extension Workspace {
    /// The `plugboard run` arguments that pass the host's variables `names` to plugins: with workers
    /// (`isolation` "process"), a policy granting every library those variables (a confined worker
    /// gets none of the host's otherwise); in process, none are needed.
    func passingEnvironment(_ names: [String], isolation: String) throws -> [String] {
        guard isolation == "process", !names.isEmpty else { return [] }
        let policy = root.file("environment-grant.json")
        try JSONSerialization.data(withJSONObject: ["libraries": ["*": ["environment": names.sorted()]]])
            .write(to: URL(fileURLWithPath: policy))
        return ["--policy", policy]
    }
}
