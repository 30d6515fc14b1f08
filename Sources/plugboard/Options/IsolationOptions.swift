import ArgumentParser
import Foundation
import Plugboard

/// `--isolation`: where plugin code runs.
struct IsolationOptions: ParsableArguments {
    /// The choices of `--isolation`.
    enum Mode: String, ExpressibleByArgument, CaseIterable {
        /// Each library in a worker process of its own.
        case process
        /// In the host's process.
        case none
    }

    /// The environment variable that names the worker executable (default: `plugboard-worker` next to
    /// `plugboard`, else where an install puts helper programs, `../libexec/plugboard/plugboard-worker`).
    static let workerVariable = "PLUGBOARD_WORKER"

    @Option(name: .customLong("isolation"),
            help: ArgumentHelp("Where plugin code runs: 'process' (each library in a worker process: a crash, an exit or a hang ends only that library's part) or 'none' (in this process).",
                               valueName: "process|none"))
    var mode: Mode = .process

    /// The isolation for the host; a missing worker executable is a usage error that says where it was looked for.
    func isolation() throws -> PluginIsolation {
        mode == .process ? try Self.workers() : .inProcess
    }

    /// Workers started from ``workerPath()``.
    static func workers() throws -> PluginIsolation {
        .workers(worker: try workerPath())
    }

    /// `$PLUGBOARD_WORKER`, else `plugboard-worker` next to this executable (a build folder), else in
    /// `../libexec/plugboard/` from it (an install: `<prefix>/bin/plugboard`,
    /// `<prefix>/libexec/plugboard/plugboard-worker`); a usage error naming where it looked otherwise.
    static func workerPath() throws -> String {
        let candidates: [String]
        if let named = ProcessInfo.processInfo.environment[Self.workerVariable] {
            candidates = [named]
        } else {
            let folder = URL(fileURLWithPath: CommandLine.executablePath).deletingLastPathComponent()
            candidates = [folder.appendingPathComponent("plugboard-worker").path,
                          folder.deletingLastPathComponent().appendingPathComponent("libexec/plugboard/plugboard-worker").path]
        }
        guard let worker = candidates.first(where: { access($0, X_OK) == 0 }) else {
            let looked = candidates.count == 1 ? "\(candidates[0]) is not one"
                : "none of " + candidates.joined(separator: ", ") + " is one"
            throw ValidationError("plugin workers need the plugboard-worker executable, and \(looked) (set \(Self.workerVariable) to its path)")
        }
        return worker
    }
}

extension CommandLine {
    /// This executable's path, from /proc/self/exe (else the first argument).
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? arguments[0]
    }
}
