import PlugboardPluginAPI
import PlugboardWorkerProtocol
import Testing

@Suite struct MessageRoundTripTests {
    @Test func samplesCoverEveryKindEventAnswerAndOperation() {
        let messages = Samples.messages.map(\.message)
        #expect(Set(messages.map(\.kind)) == Set(WorkerMessage.Kind.allCases))
        let kinds = Samples.events.compactMap { request -> LifecycleEvent.Kind? in
            if case .event(let event) = request { event.kind } else { nil }
        }
        #expect(Set(kinds) == Set(LifecycleEvent.Kind.allCases))
        #expect(Samples.events.contains(.saveState))
        #expect(Samples.events.contains { if case .restoreState = $0 { true } else { false } })
        #expect(Set(Samples.answers.map(\.kind)) == Set(CallAnswer.Kind.allCases))
        let operations = messages.compactMap { message -> FilesOperation? in
            if case .files(let operation, _, _, _, _) = message { operation } else { nil }
        }
        #expect(Set(operations) == Set(FilesOperation.allCases))
    }

    @Test(arguments: Samples.messages)
    func roundTrips(_ sample: ReceivedMessage) throws {
        let frame = try sample.message.encodedFrame(requestID: sample.requestID)
        #expect(try WorkerMessage.decode(frame: frame) == sample)
    }

    @Test func frameLayoutIsLengthKindRequestIDThenFieldsLittleEndian() throws {
        let frame = try WorkerMessage.completion(notification: 0x0102_0304_0506_0708, plugin: 3, result: -1)
            .encodedFrame(requestID: 0)
        #expect(frame == [
            25, 0, 0, 0,                                // payload length 25
            0x86,                                       // kind: completion
            0, 0, 0, 0, 0, 0, 0, 0,                     // request id 0
            8, 7, 6, 5, 4, 3, 2, 1,                     // notification
            3, 0, 0, 0,                                 // plugin
            0xFF, 0xFF, 0xFF, 0xFF,                     // result -1
        ])
    }

    @Test func unloadAndUnloadedAreLaidOutAsDocumented() throws {
        #expect(try WorkerMessage.unload(lingerMilliseconds: 200).encodedFrame(requestID: 4) == [
            13, 0, 0, 0, 0x06, 4, 0, 0, 0, 0, 0, 0, 0,
            200, 0, 0, 0,                               // linger-ms
        ])
        let census = ServiceCensus(otherThreadCalls: 5, otherThreads: 2, callsAfterDeinit: 1)
        #expect(try WorkerMessage.unloaded(census).encodedFrame(requestID: 4) == [
            29, 0, 0, 0, 0x89, 4, 0, 0, 0, 0, 0, 0, 0,
            5, 0, 0, 0, 0, 0, 0, 0,                     // other-thread-calls
            2, 0, 0, 0,                                 // other-threads
            1, 0, 0, 0, 0, 0, 0, 0,                     // calls-after-deinit
        ])
    }

    @Test func functionCallAndResultAreLaidOutAsDocumented() throws {
        #expect(try WorkerMessage.functionCall(plugin: 2, function: 1, depth: 0, arguments: [.int(-1), .string("ft"), .double(1)])
            .encodedFrame(requestID: 5) == [
            50, 0, 0, 0, 0x07, 5, 0, 0, 0, 0, 0, 0, 0,
            2, 0, 0, 0,                                 // plugin
            1, 0, 0, 0,                                 // function
            0, 0, 0, 0,                                 // depth
            3, 0, 0, 0,                                 // 3 arguments
            2, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // int -1
            6, 2, 0, 0, 0, 0x66, 0x74,                  // string "ft"
            5, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F,            // double 1.0
        ])
        #expect(try WorkerMessage.functionResult(.value(.uint(200))).encodedFrame(requestID: 5) == [
            19, 0, 0, 0, 0x8A, 5, 0, 0, 0, 0, 0, 0, 0,
            0,                                          // outcome: value
            3, 200, 0, 0, 0, 0, 0, 0, 0,                // uint 200
        ])
        #expect(try WorkerMessage.invokeReply(.failure(status: -4, message: "no")).encodedFrame(requestID: 9) == [
            20, 0, 0, 0, 0x08, 9, 0, 0, 0, 0, 0, 0, 0,
            1,                                          // outcome: failure
            0xFC, 0xFF, 0xFF, 0xFF,                     // status -4
            2, 0, 0, 0, 0x6E, 0x6F,                     // message "no"
        ])
    }

    @Test func anUnknownValueTagOrOutcomeIsMalformed() {
        // function-result, outcome value, tag 9.
        let badTag: [UInt8] = [11, 0, 0, 0, 0x8A, 1, 0, 0, 0, 0, 0, 0, 0, 0, 9]
        #expect(throws: WorkerProtocolError.malformed(field: "function-result.value", cause: .invalidValue(9))) {
            try WorkerMessage.decode(frame: badTag)
        }
        let badOutcome: [UInt8] = [10, 0, 0, 0, 0x08, 1, 0, 0, 0, 0, 0, 0, 0, 2]
        #expect(throws: WorkerProtocolError.malformed(field: "invoke-reply.outcome", cause: .invalidValue(2))) {
            try WorkerMessage.decode(frame: badOutcome)
        }
        // function-call announcing 2^32-1 arguments: refused as more than any function takes, before any is read.
        let hugeCount: [UInt8] = [25, 0, 0, 0, 0x07, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(throws: WorkerProtocolError.malformed(field: "function-call.arguments", cause: .invalidValue(0xFFFF_FFFF))) {
            try WorkerMessage.decode(frame: hugeCount)
        }
    }

    @Test func refusedIsLaidOutAsDocumented() throws {
        #expect(try WorkerMessage.refused(pluginID: "a.b", call: "post", name: nil, reason: "no").encodedFrame(requestID: 0) == [
            32, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 0, 0, 0,
            1, 3, 0, 0, 0, 0x61, 0x2E, 0x62,            // plugin-id "a.b"
            4, 0, 0, 0, 0x70, 0x6F, 0x73, 0x74,         // call "post"
            0,                                          // name: absent
            2, 0, 0, 0, 0x6E, 0x6F,                     // reason "no"
        ])
    }

    @Test func checkInvokeIsLaidOutAsDocumented() throws {
        #expect(try WorkerMessage.checkInvoke(function: "a.b.f", arguments: [.bool(true)]).encodedFrame(requestID: 3) == [
            24, 0, 0, 0, 0x91, 3, 0, 0, 0, 0, 0, 0, 0,
            5, 0, 0, 0, 0x61, 0x2E, 0x62, 0x2E, 0x66,   // function "a.b.f"
            1, 0, 0, 0,                                 // one argument
            1, 1,                                       // bool true
        ])
    }

    @Test func eachKindSaysTheMinorThatIntroducedIt() {
        #expect(WorkerMessage.Kind.allCases.filter { $0.introducedInMinor == 6 } == [.checkInvoke])
        #expect(WorkerMessage.Kind.allCases.filter { $0.introducedInMinor == 5 } == [.refused])
        #expect(WorkerMessage.Kind.allCases.filter { $0.introducedInMinor == 4 } == [.deliver, .delivered, .observe, .stopObserving, .post])
        #expect(WorkerMessage.Kind.allCases.filter { $0.introducedInMinor == 3 } == [.functionCall, .invokeReply, .functionResult, .invoke])
        #expect(WorkerMessage.Kind.allCases.filter { $0.introducedInMinor == 2 } == [.unload, .unloaded])
        #expect(WorkerMessage.Kind.allCases.filter { $0.introducedInMinor == 1 } == [.stage])
        #expect(WorkerMessage.Kind.allCases.allSatisfy { $0.introducedInMinor <= WorkerProtocolVersion.current.minor })
    }

    @Test func callTextMustBeUTF8AsEveryStringMust() throws {
        // open-url with the url bytes 0x61 0xFF and empty options: malformed, as plugins are promised UTF-8.
        let call: [UInt8] = [0x18, 0, 0, 0, 0x03, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 2, 0, 0, 0, 0x61, 0xFF, 0, 0, 0, 0]
        #expect(throws: WorkerProtocolError.malformed(field: "call.url", cause: .invalidUTF8)) {
            try WorkerMessage.decode(frame: call)
        }
        var valid = call
        valid[23] = 0x62
        #expect(try WorkerMessage.decode(frame: valid)
            == ReceivedMessage(.call(plugin: 0, request: .event(.openURL(url: "ab", options: ""))), requestID: 1))
        // A restore-state's saved version likewise.
        let restore: [UInt8] = [0x17, 0, 0, 0, 0x03, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 1, 0, 0, 0, 0xFF, 0, 0, 0, 0]
        #expect(throws: WorkerProtocolError.malformed(field: "call.saved-version", cause: .invalidUTF8)) {
            try WorkerMessage.decode(frame: restore)
        }
        // The same bytes as a load path: malformed.
        let load: [UInt8] = [0x10, 0, 0, 0, 0x02, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0x61, 0xFF, 0]
        #expect(throws: WorkerProtocolError.malformed(field: "load.path", cause: .invalidUTF8)) {
            try WorkerMessage.decode(frame: load)
        }
    }

    @Test func theDocumentedExampleFrameDecodes() throws {
        // The byte dump in WORKER-PROTOCOL.md, "Example".
        let frame: [UInt8] = [
            0x1E, 0x00, 0x00, 0x00,                          // payload length 30
            0x03,                                            // kind: call
            0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // request id 7
            0x02, 0x00, 0x00, 0x00,                          // plugin 2
            0x03,                                            // event: open-url
            0x06, 0x00, 0x00, 0x00, 0x61, 0x3A, 0x2F, 0x2F, 0x78, 0x2F,  // url "a://x/"
            0x02, 0x00, 0x00, 0x00, 0x7B, 0x7D,              // options "{}"
        ]
        let expected = ReceivedMessage(.call(plugin: 2, request: .event(.openURL(url: "a://x/", options: "{}"))), requestID: 7)
        #expect(try WorkerMessage.decode(frame: frame) == expected)
        #expect(try expected.message.encodedFrame(requestID: 7) == frame)
        let answer: [UInt8] = [0x0B, 0x00, 0x00, 0x00, 0x83, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01]
        #expect(try WorkerMessage.decode(frame: answer) == ReceivedMessage(.answer(.bool(true)), requestID: 7))
    }

    @Test func versionsWithTheSameMajorAreCompatibleAndOthersAreRefusedNamingBoth() throws {
        let own = WorkerProtocolVersion(major: 1, minor: 0)
        try own.requireCompatible(peer: WorkerProtocolVersion(major: 1, minor: 9))
        let newer = WorkerProtocolVersion(major: 2, minor: 0)
        let error = #expect(throws: WorkerProtocolError.self) { try own.requireCompatible(peer: newer) }
        #expect(error == .incompatibleVersion(peer: newer, own: own))
        #expect(error?.description.contains("2.0") == true)
        #expect(error?.description.contains("1.0") == true)
    }
}

extension ReceivedMessage: CustomTestStringConvertible {
    public var testDescription: String { "\(message.kind) #\(requestID)" }
}
