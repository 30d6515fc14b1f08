import Foundation
import Plugboard
@testable import plugboard

extension CLI {
    /// The lines of `run --json` output, decoded as the type `run` encodes them with; nil if a
    /// line does not decode.
    static func runLines(_ output: String) -> [RunLine]? {
        let decoder = JSONDecoder()
        var lines: [RunLine] = []
        for line in output.split(separator: "\n") {
            guard let decoded = try? decoder.decode(RunLine.self, from: Data(line.utf8)) else { return nil }
            lines.append(decoded)
        }
        return lines
    }
}

/// Each kind's payload, nil for a line of another kind.
extension RunLine {
    var load: LoadReport? { if case .load(let report) = self { report } else { nil } }
    var policy: PolicyDenials? { if case .policy(let denials) = self { denials } else { nil } }
    var log: PluginLogRecord? { if case .log(let record) = self { record } else { nil } }
    var output: PluginOutputLine? { if case .output(let line) = self { line } else { nil } }
    var event: EventReport? { if case .event(let report) = self { report } else { nil } }
    var state: SavedStateReport? { if case .state(let report) = self { report } else { nil } }
    var note: String? { if case .note(let message) = self { message } else { nil } }
    var post: (name: String, payload: String, notifications: NotificationReport)? {
        if case .post(let name, let payload, let notifications) = self { (name, payload, notifications) } else { nil }
    }
    var exitCode: Int? { if case .exit(let code) = self { code } else { nil } }
    var change: LibraryChange? { if case .change(let change) = self { change } else { nil } }
    var inputError: (line: Int, message: String)? { if case .inputError(let line, let message) = self { (line, message) } else { nil } }

    /// The `message` of a log, note or input-error line.
    var message: String? {
        switch self {
        case .log(let record): record.message
        case .note(let message), .inputError(_, let message): message
        default: nil
        }
    }
}

extension [RunLine] {
    /// The load report of the library at `path`.
    func load(of path: String) -> LoadReport? {
        lazy.compactMap(\.load).first { $0.path == path }
    }

    /// The messages `plugin` logged, in order.
    func logs(of plugin: String) -> [String] {
        compactMap(\.log).filter { $0.plugin == plugin }.map(\.message)
    }

    /// The event reports, in order.
    var events: [EventReport] { compactMap(\.event) }

    /// The reports of the events named `name` (`open-url`), in order.
    func events(named name: String) -> [EventReport] {
        events.filter { $0.event.name == name }
    }

    /// The names of the events reported (`open-url`), in order.
    var eventNames: [String] { events.map(\.event.name) }
}
