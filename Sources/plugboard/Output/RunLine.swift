import Plugboard

/// One line of `run --json`: every kind of line `run` prints for machines, each a JSON object
/// with the payload's fields and a `type` naming the kind. The one list of those kinds; the
/// tests read the lines back as this type.
enum RunLine: Codable {
    /// A library's load report.
    case load(LoadReport)
    /// With `--policy`: the file and each plugin's denied names.
    case policy(PolicyDenials)
    /// A log message from a plugin or the host.
    case log(PluginLogRecord)
    /// A line a plugin printed in its worker.
    case output(PluginOutputLine)
    /// An event's report.
    case event(EventReport)
    /// An events line's post and what its delivery did.
    case post(name: String, payload: String, notifications: NotificationReport)
    /// What restoring or saving the saved states did.
    case state(SavedStateReport)
    /// A note from `run` itself.
    case note(String)
    /// An events line that was skipped, and why.
    case inputError(line: Int, message: String)
    /// A library that joined, reloaded or left the running host, or could not; its `type` is the
    /// change's kind (joined, join-failed, skipped, reloaded, reload-failed, left, restart-needed).
    case change(LibraryChange)
    /// The exit code; the last line.
    case exit(code: Int)

    /// The `type` of the line.
    var type: String {
        switch self {
        case .load: "load"
        case .policy: "policy"
        case .log: "log"
        case .output: "output"
        case .event: "event"
        case .post: "post"
        case .state: "state"
        case .note: "note"
        case .inputError: "input-error"
        case .change(let change): change.kind.rawValue
        case .exit: "exit"
        }
    }

    /// The payload's fields, then `type`.
    func encode(to encoder: any Encoder) throws {
        switch self {
        case .load(let report): try report.encode(to: encoder)
        case .policy(let denials): try denials.encode(to: encoder)
        case .log(let record): try record.encode(to: encoder)
        case .output(let line): try line.encode(to: encoder)
        case .event(let report): try report.encode(to: encoder)
        case .post(let name, let payload, let notifications):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(name, forKey: .name)
            try container.encode(payload, forKey: .payload)
            try container.encode(notifications, forKey: .notifications)
        case .state(let report): try report.encode(to: encoder)
        case .note(let message):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(message, forKey: .message)
        case .inputError(let line, let message):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(line, forKey: .line)
            try container.encode(message, forKey: .message)
        case .change(let change): try change.encode(to: encoder)
        case .exit(let code):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(code, forKey: .code)
        }
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(type, forKey: .type)
    }

    /// Reads a line ``encode(to:)`` wrote, by its `type`.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        switch try container.decode(String.self, forKey: .type) {
        case "load": self = .load(try LoadReport(from: decoder))
        case "policy": self = .policy(try PolicyDenials(from: decoder))
        case "log": self = .log(try PluginLogRecord(from: decoder))
        case "output": self = .output(try PluginOutputLine(from: decoder))
        case "event": self = .event(try EventReport(from: decoder))
        case "post":
            self = .post(name: try container.decode(String.self, forKey: .name),
                         payload: try container.decode(String.self, forKey: .payload),
                         notifications: try container.decode(NotificationReport.self, forKey: .notifications))
        case "state": self = .state(try SavedStateReport(from: decoder))
        case "note": self = .note(try container.decode(String.self, forKey: .message))
        case "input-error":
            self = .inputError(line: try container.decode(Int.self, forKey: .line),
                               message: try container.decode(String.self, forKey: .message))
        case "exit": self = .exit(code: try container.decode(Int.self, forKey: .code))
        case let type where LibraryChange.Kind(rawValue: type) != nil: self = .change(try LibraryChange(from: decoder))
        case let type:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "\(type) is not a run line's type")
        }
    }

    private enum Key: String, CodingKey {
        case type, name, payload, notifications, message, line, code
    }
}
