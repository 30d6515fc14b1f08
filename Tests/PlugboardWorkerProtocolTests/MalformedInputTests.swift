import PlugboardWorkerProtocol
import Testing

/// Every class of malformed input gets its own typed error, naming the field.
@Suite struct MalformedInputTests {
    /// A frame around `payload`, with the length it really has unless told otherwise.
    private func frame(_ payload: [UInt8], length: UInt32? = nil) -> [UInt8] {
        let length = length ?? UInt32(payload.count)
        return (0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) } + payload
    }

    private func header(_ kind: UInt8, requestID: UInt64 = 1) -> [UInt8] {
        [kind] + (0..<8).map { UInt8(truncatingIfNeeded: requestID >> (8 * $0)) }
    }

    private func string(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8(bytes.count), 0, 0, 0] + bytes
    }

    private func decodeError(_ bytes: [UInt8]) -> WorkerProtocolError? {
        #expect(throws: WorkerProtocolError.self) { try WorkerMessage.decode(frame: bytes) }
    }

    @Test func aFrameShorterThanItsLengthIsTruncated() throws {
        let whole = try WorkerMessage.load(path: "a.so", allowInsecure: false).encodedFrame(requestID: 1)
        #expect(decodeError(Array(whole.dropLast())) == .truncatedFrame(received: whole.count - 1, expected: whole.count))
        #expect(decodeError([9, 0]) == .truncatedFrame(received: 2, expected: 4))
        #expect(decodeError([]) == .truncatedFrame(received: 0, expected: 4))
    }

    @Test func aLengthBeyondTheMaximumIsRefusedBeforeAnyPayloadIsRead() {
        let maximum = WireFormat.maximumPayloadLength
        #expect(decodeError(frame([], length: UInt32(maximum + 1))) == .frameTooLarge(length: maximum + 1, maximum: maximum))
        #expect(decodeError(frame([], length: .max)) == .frameTooLarge(length: Int(UInt32.max), maximum: maximum))
    }

    @Test func sendingAPayloadBeyondTheMaximumIsRefused() {
        let data = [UInt8](repeating: 0, count: WireFormat.maximumPayloadLength)
        let error = #expect(throws: WorkerProtocolError.self) {
            try WorkerMessage.loaded(reportJSON: data, file: nil).encodedFrame(requestID: 1)
        }
        #expect(error == .frameTooLarge(length: WireFormat.maximumPayloadLength + 13, maximum: WireFormat.maximumPayloadLength))
    }

    @Test func anUnknownKindIsNamed() {
        for kind: UInt8 in [0x00, 0x0A, 0x80, 0x92, 0xFF] {
            #expect(decodeError(frame(header(kind))) == .malformed(field: "kind", cause: .unknownKind(kind)))
        }
        #expect(decodeError(frame([])) == .malformed(field: "kind", cause: .runsPastEnd(needed: 1, available: 0)))
    }

    @Test func invalidUTF8NamesTheField() {
        for invalid: [UInt8] in [[0xFF], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0x61, 0xC0, 0xAF]] {
            let payload = header(0x84, requestID: 0) + [1] + string(invalid) + [0, 0, 0, 0] + string([])
            #expect(decodeError(frame(payload)) == .malformed(field: "log.plugin-id", cause: .invalidUTF8))
        }
    }

    @Test func aFieldRunningPastTheEndNamesTheFieldAndTheCounts() {
        // load: a path announced as 200 bytes with 3 present.
        #expect(decodeError(frame(header(0x02) + [200, 0, 0, 0, 0x61, 0x62, 0x63]))
            == .malformed(field: "load.path", cause: .runsPastEnd(needed: 200, available: 3)))
        // A request id cut short.
        #expect(decodeError(frame([0x05, 1, 0, 0]))
            == .malformed(field: "request-id", cause: .runsPastEnd(needed: 8, available: 3)))
        // completion: the result missing.
        #expect(decodeError(frame(header(0x86, requestID: 0) + [UInt8](repeating: 0, count: 12)))
            == .malformed(field: "completion.result", cause: .runsPastEnd(needed: 4, available: 0)))
        // loaded: bytes after the report that are not a whole file stamp.
        #expect(decodeError(frame(header(0x82) + [0, 0, 0, 0, 1, 2, 3]))
            == .malformed(field: "loaded.file.device", cause: .runsPastEnd(needed: 8, available: 3)))
        // A length near UInt32.max cannot overflow an index.
        #expect(decodeError(frame(header(0x82) + [0xFF, 0xFF, 0xFF, 0xFF]))
            == .malformed(field: "loaded.report", cause: .runsPastEnd(needed: Int(UInt32.max), available: 0)))
    }

    @Test func trailingBytesAfterTheLastFieldOrTheFrameAreRefused() throws {
        #expect(decodeError(frame(header(0x05) + [0])) == .malformed(field: "shutdown", cause: .trailingBytes(1)))
        let whole = try WorkerMessage.bye.encodedFrame(requestID: 3)
        #expect(decodeError(whole + [0, 0]) == .malformed(field: "frame", cause: .trailingBytes(2)))
    }

    @Test func valuesOutsideAFieldsSetAreRefused() {
        #expect(decodeError(frame(header(0x02) + string([]) + [2]))
            == .malformed(field: "load.allow-insecure", cause: .invalidValue(2)))
        #expect(decodeError(frame(header(0x88, requestID: 0) + string(Array("main".utf8))))
            == .malformed(field: "stage.name", cause: .unknownName("main")))
        #expect(decodeError(frame(header(0x03) + [0, 0, 0, 0, 18]))
            == .malformed(field: "call.event", cause: .invalidValue(18)))
        #expect(decodeError(frame(header(0x03) + [0, 0, 0, 0, 0]))
            == .malformed(field: "call.event", cause: .invalidValue(0)))
        #expect(decodeError(frame(header(0x83) + [6, 0])) == .malformed(field: "answer.kind", cause: .invalidValue(6)))
        #expect(decodeError(frame(header(0x83) + [4, 1])) == .malformed(field: "answer.value", cause: .invalidValue(1)))
        #expect(decodeError(frame(header(0x83) + [0, 1])) == .malformed(field: "answer.value", cause: .invalidValue(1)))
        #expect(decodeError(frame(header(0x85) + [11])) == .malformed(field: "files.operation", cause: .invalidValue(11)))
        #expect(decodeError(frame(header(0x84, requestID: 0) + [7]))
            == .malformed(field: "log.plugin-id", cause: .invalidValue(7)))
    }

    /// A list of values longer than any function's arguments is refused before anything is
    /// reserved, however much payload follows (a worker cannot make the host allocate for it).
    @Test func aListLongerThanAnyFunctionsArgumentsIsRefused() {
        let invoke = header(0x8B) + string(Array("f".utf8)) + [0, 0, 0, 0]
        #expect(decodeError(frame(invoke + [33, 0, 0, 0] + [UInt8](repeating: 0, count: 33)))
            == .malformed(field: "invoke.arguments", cause: .invalidValue(33)))
        #expect(decodeError(frame(invoke + [0xFF, 0xFF, 0xFF, 0x03] + [UInt8](repeating: 0, count: 1 << 16)))
            == .malformed(field: "invoke.arguments", cause: .invalidValue(0x03FF_FFFF)))
    }

    @Test func requestIDsFollowTheKindsRule() {
        #expect(decodeError(frame(header(0x05, requestID: 0))) == .malformed(field: "request-id", cause: .missingRequestID))
        #expect(decodeError(frame(header(0x86, requestID: 5) + [UInt8](repeating: 0, count: 16)))
            == .malformed(field: "request-id", cause: .unexpectedRequestID(5)))
        #expect(throws: WorkerProtocolError.malformed(field: "request-id", cause: .missingRequestID)) {
            try WorkerMessage.call(plugin: 0, request: .event(.willTerminate)).encodedFrame(requestID: 0)
        }
        #expect(throws: WorkerProtocolError.malformed(field: "request-id", cause: .unexpectedRequestID(9))) {
            try WorkerMessage.log(pluginID: nil, level: 2, message: "x").encodedFrame(requestID: 9)
        }
    }

    @Test func everyErrorSaysWhatAndWhereInOneLine() {
        let expectations: [(WorkerProtocolError, String)] = [
            (.closedByPeer, "the peer closed the channel"),
            (.truncatedFrame(received: 3, expected: 9), "after 3 of its 9 bytes"),
            (.frameTooLarge(length: 1 << 30, maximum: 1 << 26), "1073741824 bytes is over the maximum of 67108864"),
            (.malformed(field: "call.url", cause: .invalidUTF8), "call.url: not valid UTF-8"),
            (.malformed(field: "kind", cause: .unknownKind(9)), "kind: unknown message kind 9"),
            (.malformed(field: "log.message", cause: .runsPastEnd(needed: 4, available: 1)), "log.message: needs 4 bytes but only 1"),
            (.malformed(field: "call.event", cause: .invalidValue(16)), "call.event: 16 is not one of"),
            (.malformed(field: "request-id", cause: .missingRequestID), "request-id: request id 0"),
            (.malformed(field: "request-id", cause: .unexpectedRequestID(2)), "request id 2 on a message that takes no reply"),
            (.malformed(field: "bye", cause: .trailingBytes(1)), "bye: 1 bytes after the last field"),
            (.incompatibleVersion(peer: WorkerProtocolVersion(major: 2, minor: 0), own: WorkerProtocolVersion(major: 1, minor: 3)),
             "worker protocol 2.0, which this side (1.3) cannot"),
            (.system(call: "read", .badFileDescriptor), "read on the worker channel failed"),
        ]
        for (error, expected) in expectations {
            #expect(error.description.contains(expected), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }
}
