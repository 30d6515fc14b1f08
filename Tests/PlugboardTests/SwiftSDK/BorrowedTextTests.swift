@testable import PlugboardPluginAPI
import Testing
@testable import Plugboard

/// The concern protocols' borrowed forms: the host calls them, a plugin implements either form,
/// bytes that are not UTF-8 arrive repaired, and ``TextSpan`` compares bytes.
@Suite struct BorrowedTextTests {
    /// Implements only the borrowed forms and records the text it was lent, copied.
    struct BorrowingPlugin: LaunchPlugin, OpenURLPlugin, UserActivityPlugin, RemoteNotificationPlugin {
        let descriptor: PluginDescriptor
        let log: CallLog

        func willFinishLaunching(options: TextSpan) -> Bool { log.record("launch \(String(copying: options))"); return true }
        func open(url: TextSpan, options: TextSpan) -> Bool {
            log.record("open \(String(copying: url)) \(String(copying: options))")
            return url.hasBytePrefix("borrow://")
        }
        func continueUserActivity(type: TextSpan, userInfo: TextSpan) -> Bool {
            log.record("activity \(String(copying: type)) \(String(copying: userInfo))")
            return false
        }
        func didRegisterForRemoteNotifications(deviceToken: Span<UInt8>) {
            log.record("token \((0..<deviceToken.count).map { String(deviceToken[$0], radix: 16) }.joined(separator: " "))")
        }
        func didFailToRegisterForRemoteNotifications(error: TextSpan) { log.record("failed \(String(copying: error))") }
        func didReceiveRemoteNotification(userInfo: TextSpan, completion: FetchCompletion) {
            log.record("notification \(String(copying: userInfo))")
            completion(.newData)
        }
    }

    /// Implements only the `String` forms, which the borrowed forms' defaults reach.
    struct CopyingPlugin: OpenURLPlugin, RemoteNotificationPlugin {
        let descriptor: PluginDescriptor
        let log: CallLog

        func open(url: String, options: String) -> Bool { log.record("open \(url) \(options)"); return url.hasPrefix("copy://") }
        func didRegisterForRemoteNotifications(deviceToken: [UInt8]) { log.record("token \(deviceToken)") }
    }

    private func host(_ log: CallLog) throws -> PluginHost {
        let host = PluginHost()
        try host.register(BorrowingPlugin(descriptor: PluginDescriptor(id: try PluginID(validating: "org.test.borrowing"), priority: 10), log: log))
        try host.register(CopyingPlugin(descriptor: PluginDescriptor(id: try PluginID(validating: "org.test.copying")), log: log))
        return host
    }

    @Test func eitherFormIsCalledWithTheText() throws {
        let log = CallLog()
        let host = try host(log)
        defer { host.shutdown() }
        #expect(host.willFinishLaunching(options: #"{"a":1}"#).accepted == true)
        #expect(host.open(url: "borrow://x", options: "{}").decidedBy.map(\.rawValue) == ["org.test.borrowing"])
        #expect(host.open(url: "copy://y", options: #"{"é":"日本"}"#).decidedBy.map(\.rawValue) == ["org.test.copying"])
        _ = host.continueUserActivity(type: "org.test.activity", userInfo: "{}")
        _ = host.didRegisterForRemoteNotifications(deviceToken: [0xca, 0xfe])
        _ = host.didFailToRegisterForRemoteNotifications(error: "no network")
        #expect(host.didReceiveRemoteNotification(userInfo: "{}", deadline: .seconds(5)).answer == .fetch(.newData))
        #expect(log.all == [
            #"launch {"a":1}"#,
            "open borrow://x {}",
            #"open copy://y {"é":"日本"}"#, #"open copy://y {"é":"日本"}"#,
            "activity org.test.activity {}",
            "token ca fe", "token [202, 254]",
            "failed no network",
            "notification {}",
        ])
    }

    @Test func textThatIsNotUTF8ArrivesRepaired() throws {
        let log = CallLog()
        let host = try host(log)
        defer { host.shutdown() }
        _ = host.dispatch(.openURL(url: EventText(bytes: [0x62, 0xff, 0x63]), options: EventText(bytes: [])))
        #expect(log.all == ["open b\u{FFFD}c ", "open b\u{FFFD}c "])
    }

    @Test func bytePrefixComparesBytes() {
        /// `#expect` cannot hold a non-escapable value: the span lives in here.
        func starts(_ text: String, with prefix: StaticString) -> Bool { TextSpan(text.utf8Span).hasBytePrefix(prefix) }
        #expect(starts("benchapp://x", with: "benchapp://"))
        #expect(starts("benchapp://x", with: ""))
        #expect(starts("", with: ""))
        #expect(!starts("", with: "b"))
        #expect(!starts("benchapp://x", with: "benchapp://xy"))
        #expect(!starts("benchapp://x", with: "bench-app"))
        #expect(starts("\u{E9}t\u{E9}", with: "\u{E9}"))
        // Bytes, not characters: "é" precomposed is not "e" and a combining accent, as String sees it.
        #expect(!starts("\u{E9}t\u{E9}", with: "e\u{301}"))
        #expect("\u{E9}t\u{E9}".hasPrefix("e\u{301}"))
    }

    @Test func bytesEqualComparesEveryByte() {
        func equal(_ text: String, _ other: String) -> Bool { TextSpan(text.utf8Span).bytesEqual(to: other.utf8) }
        #expect(equal("org.test.activity", "org.test.activity"))
        #expect(equal("", ""))
        #expect(!equal("org.test.activity", "org.test.activit"))
        #expect(!equal("org.test.activit", "org.test.activity"))
        #expect(!equal("\u{E9}", "e\u{301}"))
    }

    @Test func aTextSpanReadsAsTheStandardLibrarysUTF8Span() {
        func read(_ text: String, against other: String) -> (count: Int, isEmpty: Bool, equivalent: Bool, copy: String) {
            let span = TextSpan(text.utf8Span)
            return (span.count, span.isEmpty, span.utf8Span.isCanonicallyEquivalent(to: other.utf8Span), String(copying: span))
        }
        // "e" and a combining accent, then "é" precomposed: canonically "été".
        let accented = read("e\u{301}t\u{E9}", against: "\u{E9}t\u{E9}")
        #expect(accented.count == 6 && !accented.isEmpty && accented.equivalent && accented.copy == "e\u{301}t\u{E9}")
        let empty = read("", against: "")
        #expect(empty.count == 0 && empty.isEmpty && empty.equivalent && empty.copy == "")
        #expect(!read("ete", against: "\u{E9}t\u{E9}").equivalent)
    }

    @Test func asciiIsRecognizedAtEveryLengthAndPosition() {
        func ascii(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { isASCII($0) } }
        #expect(ascii([]))
        let text = Array("benchapp://item/42?page=7".utf8)
        for length in 1...text.count {
            #expect(ascii(Array(text.prefix(length))), "\(length) ASCII bytes")
            for position in 0..<length {
                var bytes = Array(text.prefix(length))
                bytes[position] = 0xC3
                #expect(!ascii(bytes), "a high byte at \(position) of \(length)")
            }
        }
    }

    /// The SDK lends what the host passes as it is: the host passes UTF-8 only.
    @Test func lentTextIsTheHostsBytes() {
        func lent(_ bytes: [UInt8]) -> [UInt8] {
            bytes.withUnsafeBufferPointer { buffer in withTextSpan(buffer.baseAddress, count: buffer.count) { Array(String(copying: $0).utf8) } }
        }
        #expect(lent(Array("plain".utf8)) == Array("plain".utf8))
        #expect(lent(Array("h\u{E9}llo \u{65E5}\u{672C}".utf8)) == Array("h\u{E9}llo \u{65E5}\u{672C}".utf8))
        #expect(withTextSpan(nil, count: 5) { $0.count } == 0)
    }
}
