import Foundation

/// One lifecycle event written as a JSON object, as `plugboard run --events`
/// reads them one per line, e.g. `{"event":"open-url","url":"myapp://item/42"}`.
///
/// Launch events are not scriptable: the host sends them itself before the first line.
public enum ScriptedEvent: Sendable, Equatable {
    /// `{"event":"open-url","url":…,"options":{…}}`
    case openURL(url: String, options: String)
    /// `{"event":"continue-user-activity","type":…,"userInfo":{…}}`
    case continueUserActivity(type: String, userInfo: String)
    /// `{"event":"remote-notification","userInfo":{…},"deadlineMs":…}`
    case remoteNotification(userInfo: String, deadline: Duration)
    /// `{"event":"register-token","token":"hex"}`
    case registerToken([UInt8])
    /// `{"event":"register-failed","error":…}`
    case registerFailed(error: String)
    /// `{"event":"memory-warning"}`
    case memoryWarning
    /// `{"event":"protected-data-will-become-unavailable"}`
    case protectedDataWillBecomeUnavailable
    /// `{"event":"protected-data-did-become-available"}`
    case protectedDataDidBecomeAvailable
    /// `{"event":"did-become-active"}`
    case didBecomeActive
    /// `{"event":"will-resign-active"}`
    case willResignActive
    /// `{"event":"did-enter-background"}`
    case didEnterBackground
    /// `{"event":"will-enter-foreground"}`
    case willEnterForeground
    /// `{"event":"will-terminate"}`: ends the script.
    case willTerminate

    /// The deadline of a notification line without `deadlineMs`.
    public static let defaultNotificationDeadline = Duration.seconds(5)

    /// Parses one line; the error says what is wrong with it.
    public init(jsonLine line: String) throws(ScriptError) {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw ScriptError("the line is not a JSON object")
            }
            object = parsed
        } catch let error as ScriptError {
            throw error
        } catch {
            throw ScriptError("the line is not valid JSON")
        }
        guard let name = object["event"] as? String else {
            throw ScriptError("missing \"event\" (a string such as \"open-url\")")
        }
        guard let event = LifecycleEvent(rawValue: name) else {
            let names = (LifecycleEvent.allCases.filter(\.isScriptable).map(\.rawValue) + [ScriptLine.postEvent])
                .joined(separator: ", ")
            throw ScriptError("unknown event \"\(name)\"; known events: \(names)")
        }
        let fields = Fields(object: object, event: name)
        switch event {
        case .willFinishLaunching, .didFinishLaunching:
            throw ScriptError("\"\(name)\" cannot be scripted: the host sends the launch events itself")
        case .openURL:
            try fields.allow(["url", "options"])
            self = .openURL(url: try fields.string("url"), options: try fields.jsonObject("options"))
        case .continueUserActivity:
            try fields.allow(["type", "userInfo"])
            self = .continueUserActivity(type: try fields.string("type"), userInfo: try fields.jsonObject("userInfo"))
        case .remoteNotification:
            try fields.allow(["userInfo", "deadlineMs"])
            self = .remoteNotification(userInfo: try fields.jsonObject("userInfo"), deadline: try fields.deadline())
        case .registerToken:
            try fields.allow(["token"])
            self = .registerToken(try fields.hexBytes("token"))
        case .registerFailed:
            try fields.allow(["error"])
            self = .registerFailed(error: try fields.string("error"))
        case .memoryWarning: self = try fields.bare(.memoryWarning)
        case .protectedDataWillBecomeUnavailable: self = try fields.bare(.protectedDataWillBecomeUnavailable)
        case .protectedDataDidBecomeAvailable: self = try fields.bare(.protectedDataDidBecomeAvailable)
        case .didBecomeActive: self = try fields.bare(.didBecomeActive)
        case .willResignActive: self = try fields.bare(.willResignActive)
        case .didEnterBackground: self = try fields.bare(.didEnterBackground)
        case .willEnterForeground: self = try fields.bare(.willEnterForeground)
        case .willTerminate: self = try fields.bare(.willTerminate)
        }
    }
}

/// One line of an events script: a lifecycle event, or a notification the script
/// posts on the bus, `{"event":"post","name":"com.example.x","payload":{…}}`
/// (sent by "plugboard"; the payload is "{}" when absent).
public enum ScriptLine: Sendable, Equatable {
    /// A lifecycle event.
    case event(ScriptedEvent)
    /// A notification to post.
    case post(name: String, payload: String)

    /// The `event` value of a post line.
    static let postEvent = "post"

    /// Parses one line, strict JSON (``JSONSyntax``: no key twice, no trailing comma); the error says what is wrong with it.
    public init(jsonLine line: String) throws(ScriptError) {
        do { try JSONSyntax.check(line, refusingDuplicateKeys: true) } catch { throw ScriptError("the line is not valid JSON: \(error)") }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
              object["event"] as? String == Self.postEvent else {
            self = .event(try ScriptedEvent(jsonLine: line))
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
}

/// What is wrong with a scripted event line.
public struct ScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One sentence naming the problem.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension LifecycleEvent {
    /// Whether an events script may contain this event.
    var isScriptable: Bool { concern != .launch }
}

/// Typed access to the fields of one event object, with errors that name the field.
private struct Fields {
    let object: [String: Any]
    let event: String

    func allow(_ keys: Set<String>) throws(ScriptError) {
        for key in object.keys.sorted() where key != "event" && !keys.contains(key) {
            let expected = keys.isEmpty ? "it takes no fields" : "expected: " + keys.sorted().joined(separator: ", ")
            throw ScriptError("unknown field \"\(key)\" for \"\(event)\" (\(expected))")
        }
    }

    /// An event that takes no fields.
    func bare(_ event: ScriptedEvent) throws(ScriptError) -> ScriptedEvent {
        try allow([])
        return event
    }

    func string(_ key: String) throws(ScriptError) -> String {
        guard let value = object[key] else { throw ScriptError("\"\(event)\" needs \"\(key)\"") }
        guard let text = value as? String else { throw ScriptError("\"\(key)\" must be a string") }
        return text
    }

    /// The field re-encoded as JSON object text; "{}" when absent.
    func jsonObject(_ key: String) throws(ScriptError) -> String {
        guard let value = object[key] else { return "{}" }
        guard value is [String: Any],
              let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
        else { throw ScriptError("\"\(key)\" must be a JSON object") }
        return String(decoding: data, as: UTF8.self)
    }

    func deadline() throws(ScriptError) -> Duration {
        guard let value = object["deadlineMs"] else { return ScriptedEvent.defaultNotificationDeadline }
        guard let number = value as? NSNumber, !(value is Bool),
              number.doubleValue >= 0, number.doubleValue <= 3_600_000,
              number.doubleValue == number.doubleValue.rounded()
        else { throw ScriptError("\"deadlineMs\" must be a whole number of milliseconds from 0 to 3600000") }
        return .milliseconds(number.int64Value)
    }

    func hexBytes(_ key: String) throws(ScriptError) -> [UInt8] {
        let text = try string(key)
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { throw ScriptError("\"\(key)\" must be hex digits in pairs") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else {
                throw ScriptError("\"\(key)\" must contain only hex digits (0-9, a-f)")
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
