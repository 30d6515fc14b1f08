import Testing
@testable import Plugboard

/// The one event type: its table, its arguments, and an events-script line read into it.
@Suite struct LifecycleEventTests {
    /// One event of every kind, with arguments.
    static let samples: [LifecycleEvent] = [
        .willFinishLaunching(options: #"{"a":1}"#), .didFinishLaunching(options: "{}"),
        .openURL(url: "myapp://item/42", options: "{}"), .continueUserActivity(type: "com.example.read", userInfo: "{}"),
        .remoteNotification(userInfo: #"{"aps":{}}"#, deadline: .milliseconds(250)), .registerToken([0x0f, 0xa0]),
        .registerFailed(error: "offline"), .memoryWarning, .protectedDataWillBecomeUnavailable,
        .protectedDataDidBecomeAvailable, .didBecomeActive, .willResignActive, .didEnterBackground,
        .willEnterForeground, .willTerminate,
    ]

    @Test func theTableHasOneRowPerKindInWireOrderWithUniqueNamesAndSlots() {
        let kinds = LifecycleEvent.Kind.allCases
        #expect(kinds.map(\.rawValue) == Array(0..<UInt8(kinds.count)))
        // The wire numbers: unique, the first 15 as they always were, none a saved-state call's (16, 17).
        #expect(kinds.map(\.wireCode) == Array(1...15))
        for kind in kinds { #expect(LifecycleEvent.Kind(wireCode: kind.wireCode) == kind) }
        #expect(LifecycleEvent.Kind(wireCode: 16) == nil && LifecycleEvent.Kind(wireCode: 17) == nil)
        #expect(Set(kinds.map(\.name)).count == kinds.count)
        #expect(Set(kinds.map { $0.callbackName.description }).count == kinds.count)
        for kind in kinds { #expect(LifecycleEvent.Kind(name: kind.name) == kind) }
        #expect(LifecycleEvent.Kind(name: "open_url") == nil)
        #expect(Set(Self.samples.map(\.kind)) == Set(kinds))
    }

    @Test func eachEventIsRebuiltFromItsKindAndArgumentsAndNothingElseFits() {
        for event in Self.samples {
            #expect(event.arguments.count == event.kind.parameters.count, "\(event.kind.name)")
            #expect(LifecycleEvent(kind: event.kind, arguments: event.arguments) == event, "\(event.kind.name)")
        }
        #expect(LifecycleEvent(kind: .openURL, arguments: [.text("a://b")]) == nil)
        #expect(LifecycleEvent(kind: .registerToken, arguments: [.text("0fa0")]) == nil)
        #expect(LifecycleEvent(kind: .memoryWarning, arguments: [.bytes([])]) == nil)
    }

    @Test func textIsComparedByItsBytesWhateverItCameAs() {
        #expect(EventText("é") == EventText(bytes: [0xC3, 0xA9]))
        #expect(EventText("e\u{301}") != EventText("é"))
        #expect(EventText(bytes: [0xFF]).string == "\u{FFFD}")
    }

    /// Bytes are repaired when the text is made, so what a plugin is lent is UTF-8; UTF-8 is kept as it is.
    @Test func bytesThatAreNotUTF8AreRepairedOnce() {
        #expect(EventText(bytes: [0x61, 0xFF]).bytes == [0x61, 0xEF, 0xBF, 0xBD])
        #expect(EventText(bytes: [0x61, 0xFF]).withCText { pointer, count in count == 4 && pointer[4] == 0 })
        #expect(EventText(bytes: [0xED, 0xA0, 0x80]).bytes == Array("\u{FFFD}\u{FFFD}\u{FFFD}".utf8), "an encoded surrogate")
        let valid: [UInt8] = Array("h\u{E9}llo \u{65E5}\u{672C} \u{1F600} \u{0}".utf8)
        #expect(EventText(bytes: valid).bytes == valid)
        #expect(EventText(bytes: []).bytes == [])
    }

    @Test func aScriptLineFillsEachParameterByItsForm() throws {
        #expect(try ScriptLine(jsonLine: #"{"event":"register-token","token":"0FA0"}"#) == .event(.registerToken([0x0f, 0xa0])))
        #expect(try ScriptLine(jsonLine: #"{"event":"remote-notification","userInfo":{"b":1,"a":2}}"#)
            == .event(.remoteNotification(userInfo: #"{"a":2,"b":1}"#, deadline: ScriptLine.defaultNotificationDeadline)))
        #expect(try ScriptLine(jsonLine: #"{"event":"open-url","url":"x://y"}"#) == .event(.openURL(url: "x://y", options: "{}")))
        #expect(throws: ScriptError(#""token" must be hex digits in pairs"#)) {
            try ScriptLine(jsonLine: #"{"event":"register-token","token":"0fa"}"#)
        }
        #expect(throws: ScriptError(#"unknown field "url" for "memory-warning" (it takes no fields)"#)) {
            try ScriptLine(jsonLine: #"{"event":"memory-warning","url":"x://y"}"#)
        }
        // Valid JSON, but a number no Double holds: said so, not called "not a JSON object".
        for number in ["1e400", "-1e400"] {
            #expect(throws: ScriptError("the line cannot be read: it holds a number out of the range of a 64-bit "
                                        + "floating-point number (such as 1e400)")) {
                try ScriptLine(jsonLine: #"{"event":"open-url","url":"x://y","deadlineMs":"# + number + "}")
            }
        }
    }

    @Test func theTracerShowsTheArgumentsTheSlotGets() {
        #expect(CallTracer.arguments(of: .openURL(url: "a://b", options: "{}")) == #"url: "a://b", options: "{}""#)
        #expect(CallTracer.arguments(of: .registerToken([0x0f, 0xa0])) == #"token: "0fa0""#)
        #expect(CallTracer.arguments(of: .remoteNotification(userInfo: "{}", deadline: .seconds(1))) == #"userInfo: "{}""#)
        #expect(CallTracer.arguments(of: .willTerminate) == "")
    }
}
