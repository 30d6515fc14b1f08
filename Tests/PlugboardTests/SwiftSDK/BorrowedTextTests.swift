@testable import PlugboardPluginAPI
import Testing
@testable import Plugboard

/// The concern protocols' borrowed forms: the host calls them, a plugin implements either form,
/// bytes that are not UTF-8 arrive repaired, and `hasBytePrefix` compares bytes.
@Suite struct BorrowedTextTests {
    /// Implements only the borrowed forms and records the text it was lent, copied.
    struct BorrowingPlugin: LaunchPlugin, OpenURLPlugin, UserActivityPlugin, RemoteNotificationPlugin {
        let descriptor: PluginDescriptor
        let log: CallLog

        func willFinishLaunching(options: UTF8Span) -> Bool { log.record("launch \(String(copying: options))"); return true }
        func open(url: UTF8Span, options: UTF8Span) -> Bool {
            log.record("open \(String(copying: url)) \(String(copying: options))")
            return url.hasBytePrefix("borrow://")
        }
        func continueUserActivity(type: UTF8Span, userInfo: UTF8Span) -> Bool {
            log.record("activity \(String(copying: type)) \(String(copying: userInfo))")
            return false
        }
        func didRegisterForRemoteNotifications(deviceToken: Span<UInt8>) {
            log.record("token \((0..<deviceToken.count).map { String(deviceToken[$0], radix: 16) }.joined(separator: " "))")
        }
        func didFailToRegisterForRemoteNotifications(error: UTF8Span) { log.record("failed \(String(copying: error))") }
        func didReceiveRemoteNotification(userInfo: UTF8Span, completion: FetchCompletion) {
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
        func starts(_ text: String, with prefix: StaticString) -> Bool { text.utf8Span.hasBytePrefix(prefix) }
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
            bytes.withUnsafeBufferPointer { buffer in withUTF8Span(buffer.baseAddress, count: buffer.count) { Array(String(copying: $0).utf8) } }
        }
        #expect(lent(Array("plain".utf8)) == Array("plain".utf8))
        #expect(lent(Array("h\u{E9}llo \u{65E5}\u{672C}".utf8)) == Array("h\u{E9}llo \u{65E5}\u{672C}".utf8))
        #expect(withUTF8Span(nil, count: 5) { $0.count } == 0)
    }
}
