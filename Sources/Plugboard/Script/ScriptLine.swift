/// One line of an events script, as `plugboard run --events` reads them one per line: a
/// lifecycle event written as a JSON object whose fields are the event's parameters,
/// `{"event":"open-url","url":"myapp://item/42"}`, or a notification the script posts on
/// the bus, `{"event":"post","name":"com.example.x","payload":{…}}` (sent by "plugboard";
/// the payload is "{}" when absent).
///
/// By a parameter's form, a field is a string (text), an object (JSON object text, "{}" when
/// absent), hex digits (bytes) or a whole number of milliseconds (a deadline, 5 s when
/// absent). Launch events are not scriptable: the host sends them itself before the first line.
public enum ScriptLine: Sendable, Equatable {
    /// A lifecycle event.
    case event(LifecycleEvent)
    /// A notification to post.
    case post(name: String, payload: String)

    /// The `event` value of a post line.
    static let postEvent = "post"

    /// Parses one line, strict JSON (``JSONSyntax``: no key twice, no trailing comma); the error says what is wrong with it.
    public init(jsonLine line: String) throws(ScriptError) {
        do { try JSONSyntax.check(line, refusingDuplicateKeys: true) } catch { throw ScriptError("the line is not valid JSON: \(error)") }
        let value: JSONValue
        do { value = try JSONValue(json: line.utf8) } catch { throw ScriptError("the line cannot be read: \(error)") }
        guard let object = value.asObject else { throw ScriptError("the line is not a JSON object") }
        guard let event = object["event"]?.asString else {
            throw ScriptError("missing \"event\" (a string such as \"open-url\")")
        }
        guard event == Self.postEvent else {
            self = .event(try Self.event(event, object))
            return
        }
        let fields = Fields(object: object, event: Self.postEvent)
        try fields.allow(["name", "payload"])
        let name = try fields.string("name")
        let payload = try fields.jsonObject("payload")
        do {
            try NotificationRefusal.check(name: name, call: "post")
            try NotificationRefusal.check(payload: payload, name: name)
        } catch {
            throw ScriptError(error.description)
        }
        self = .post(name: name, payload: payload)
    }

    /// One line per scriptable event with every field of its parameters, as `run --help` lists
    /// them: `{"event":"open-url","url":"…","options":{}}`.
    public static var templates: [String] {
        LifecycleEvent.Kind.allCases.filter(\.isScriptable).map { kind in
            let fields = kind.parameters.map { parameter in
                let value = switch parameter.form {
                case .text: #""…""#
                case .jsonObject: "{}"
                case .bytes: #""hex digits""#
                case .milliseconds: "5000"
                }
                return #","\#(parameter.name)":\#(value)"#
            }
            return #"{"event":"\#(kind.name)""# + fields.joined() + "}"
        }
    }

    /// The deadline of a notification line without `deadlineMs`.
    public static let defaultNotificationDeadline = Duration.seconds(5)

    /// The event `name` with its parameters read from the fields of `object`.
    private static func event(_ name: String, _ object: [String: JSONValue]) throws(ScriptError) -> LifecycleEvent {
        guard let kind = LifecycleEvent.Kind(name: name) else {
            let names = (LifecycleEvent.Kind.allCases.filter(\.isScriptable).map(\.name) + [postEvent]).joined(separator: ", ")
            throw ScriptError("unknown event \"\(name)\"; known events: \(names)")
        }
        guard kind.isScriptable else {
            throw ScriptError("\"\(name)\" cannot be scripted: the host sends the launch events itself")
        }
        let fields = Fields(object: object, event: name)
        try fields.allow(Set(kind.parameters.map(\.name)))
        var arguments: [EventArgument] = []
        for parameter in kind.parameters {
            switch parameter.form {
            case .text: arguments.append(.text(EventText(try fields.string(parameter.name))))
            case .jsonObject: arguments.append(.text(EventText(try fields.jsonObject(parameter.name))))
            case .bytes: arguments.append(.bytes(try fields.hexBytes(parameter.name)))
            case .milliseconds: arguments.append(.duration(try fields.milliseconds(parameter.name)))
            }
        }
        guard let event = LifecycleEvent(kind: kind, arguments: arguments) else {
            throw ScriptError("\"\(name)\" cannot be read from its fields")
        }
        return event
    }
}

/// What is wrong with a scripted event line.
public struct ScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One sentence naming the problem.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Typed access to the fields of one event object, with errors that name the field.
private struct Fields {
    let object: [String: JSONValue]
    let event: String

    func allow(_ keys: Set<String>) throws(ScriptError) {
        for key in object.keys.sorted() where key != "event" && !keys.contains(key) {
            let expected = keys.isEmpty ? "it takes no fields" : "expected: " + keys.sorted().joined(separator: ", ")
            throw ScriptError("unknown field \"\(key)\" for \"\(event)\" (\(expected))")
        }
    }

    func string(_ key: String) throws(ScriptError) -> String {
        guard let value = object[key] else { throw ScriptError("\"\(event)\" needs \"\(key)\"") }
        guard let text = value.asString else { throw ScriptError("\"\(key)\" must be a string") }
        return text
    }

    /// The field re-encoded as JSON object text; "{}" when absent.
    func jsonObject(_ key: String) throws(ScriptError) -> String {
        guard let value = object[key] else { return "{}" }
        guard value.asObject != nil else { throw ScriptError("\"\(key)\" must be a JSON object") }
        return value.text
    }

    /// The field as whole milliseconds from 0 to an hour; ``ScriptLine/defaultNotificationDeadline`` when absent.
    func milliseconds(_ key: String) throws(ScriptError) -> Duration {
        guard let value = object[key] else { return ScriptLine.defaultNotificationDeadline }
        guard let number = value.asWholeNumber, (0...3_600_000).contains(number)
        else { throw ScriptError("\"\(key)\" must be a whole number of milliseconds from 0 to 3600000") }
        return .milliseconds(number)
    }

    func hexBytes(_ key: String) throws(ScriptError) -> [UInt8] {
        let text = try string(key)
        guard text.utf8.count.isMultiple(of: 2) else { throw ScriptError("\"\(key)\" must be hex digits in pairs") }
        guard let bytes = Hexadecimal.bytes(text) else {
            throw ScriptError("\"\(key)\" must contain only hex digits (0-9, a-f, any case)")
        }
        return bytes
    }
}
