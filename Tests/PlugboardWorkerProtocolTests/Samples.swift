import PlugboardPluginAPI
import PlugboardWorkerProtocol

/// Messages of every kind, event, answer and files operation, with extreme
/// values: empty and non-ASCII strings, 1 MiB payloads, the largest integers.
enum Samples {
    static let mebibyte = [UInt8]((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    static let nonASCII = "Grüße, 世界 — 🎛️ e\u{301}"
    static let longText = String(repeating: "ü", count: 1 << 19)

    /// Bytes that are not UTF-8 (a stray continuation byte, a truncated sequence, an encoded surrogate):
    /// an event's text made of them is repaired with U+FFFD, so what crosses the channel is UTF-8.
    static let notUTF8: [UInt8] = [0x61, 0x80, 0xC3, 0x00, 0xED, 0xA0, 0x80, 0xFF]

    static let events: [CallRequest] = [
        .event(.willFinishLaunching(options: "{}")),
        .event(.didFinishLaunching(options: EventText(#"{"name":"\#(nonASCII)"}"#))),
        .event(.openURL(url: EventText("myapp://item/42?q=\(nonASCII)"), options: "")),
        .event(.openURL(url: EventText(bytes: notUTF8), options: EventText(bytes: notUTF8))),
        .event(.continueUserActivity(type: "", userInfo: EventText(longText))),
        .event(.continueUserActivity(type: EventText(bytes: notUTF8), userInfo: EventText(bytes: notUTF8))),
        .event(.remoteNotification(userInfo: #"{"aps":{}}"#, deadline: .milliseconds(UInt32.max))),
        .event(.remoteNotification(userInfo: "", deadline: .zero)),
        .event(.registerToken([])),
        .event(.registerToken(mebibyte)),
        .event(.registerFailed(error: EventText(nonASCII))),
        .event(.registerFailed(error: EventText(bytes: notUTF8))),
        .event(.memoryWarning),
        .event(.protectedDataWillBecomeUnavailable),
        .event(.protectedDataDidBecomeAvailable),
        .event(.didBecomeActive),
        .event(.willResignActive),
        .event(.didEnterBackground),
        .event(.willEnterForeground),
        .event(.willTerminate),
        .saveState,
        .restoreState(savedVersion: Array("1.0.\(nonASCII)".utf8), state: mebibyte),
        .restoreState(savedVersion: Array("a\u{0}b".utf8), state: []),
    ]

    /// A value of every tag, with extremes.
    static let functionValues: [PluginValue] = [
        .void, .bool(true), .bool(false), .int(.min), .int(.max), .uint(.max), .uint(0),
        .float(-.infinity), .float(.leastNonzeroMagnitude), .double(.infinity), .double(-0.0), .double(.greatestFiniteMagnitude),
        .string(""), .string(nonASCII), .bytes([]), .bytes([0, 255]), .pointer(.max), .pointer(0),
    ]

    static let answers: [CallAnswer] = [.returned, .bool(true), .bool(false), .notTakingPart, .pending, .state([]), .state(mebibyte),
                                         .refused(""), .refused(nonASCII)]

    /// Every sample with a request id its kind allows.
    static let messages: [ReceivedMessage] = {
        var messages: [WorkerMessage] = [
            .hello(protocolVersion: .current, hostABIMajor: 1, hostABIMinor: 1),
            .hello(protocolVersion: WorkerProtocolVersion(major: .max, minor: .max), hostABIMajor: .max, hostABIMinor: 0),
            .load(path: "", allowInsecure: false),
            .load(path: "/plugins/\(nonASCII).so", allowInsecure: true),
            .serviceReply(status: 0, payload: [], message: ""),
            .serviceReply(status: .min, payload: mebibyte, message: nonASCII),
            .shutdown,
            .helloReply(protocolVersion: .current, workerPID: .max),
            .helloReply(protocolVersion: WorkerProtocolVersion(major: 0, minor: 0), workerPID: .min),
            .loaded(reportJSON: [], file: nil),
            .loaded(reportJSON: mebibyte, file: nil),
            .loaded(reportJSON: [], file: FileStamp(device: .max, inode: .max, size: .max, modifiedSeconds: .min,
                                                    modifiedNanoseconds: .max, changedSeconds: .max, changedNanoseconds: 0,
                                                    owner: .max, permissions: .max)),
            .loaded(reportJSON: mebibyte, file: FileStamp(device: 0, inode: 0, size: 0, modifiedSeconds: 0, modifiedNanoseconds: 0,
                                                          changedSeconds: .min, changedNanoseconds: .max, owner: 0, permissions: 0)),
            .log(pluginID: nil, level: 4, message: ""),
            .log(pluginID: "", level: .min, message: nonASCII),
            .log(pluginID: "com.example.\(nonASCII)", level: .max, message: longText),
            .files(operation: .write, path: "Documents/a.txt", secondPath: "", data: mebibyte, flags: .max),
            .completion(notification: .max, plugin: .max, result: .min),
            .completion(notification: 0, plugin: 0, result: 0),
            .bye,
            .stage(.registerPlugins),
            .stage(.entry),
            .unload(lingerMilliseconds: 0),
            .unload(lingerMilliseconds: .max),
            .unloaded(.zero),
            .unloaded(ServiceCensus(otherThreadCalls: .max, otherThreads: .max, callsAfterDeinit: .max)),
            .functionCall(plugin: 0, function: 0, depth: 0, arguments: []),
            .functionCall(plugin: .max, function: .max, depth: .max, arguments: functionValues),
            .functionResult(.value(.void)),
            .functionResult(.value(.bytes(mebibyte))),
            .functionResult(.error(json: Array(#"{"unknownPlugin":{}}"#.utf8))),
            .invoke(function: "com.example.units.convert", depth: 1, arguments: functionValues),
            .invoke(function: "", depth: .max, arguments: []),
            .invokeReply(.value(.string(nonASCII))),
            .invokeReply(.failure(status: -4, message: nonASCII)),
            .deliver(token: 7, name: "com.example.network.status", payload: "{\"online\":true}", sender: "com.example.network", depth: 2),
            .deliver(token: .max, name: "", payload: nonASCII, sender: "", depth: .max),
            .delivered,
            .observe(token: 1, pluginID: "com.example.history", name: "com.example.network.status"),
            .stopObserving(token: .max),
            .post(pluginID: "com.example.network", name: "com.example.network.status", payload: nonASCII, depth: 1),
            .refused(pluginID: "com.example.network", call: "post", name: "no dots", reason: nonASCII),
            .refused(pluginID: nil, call: "stop_observing", name: nil, reason: ""),
            .checkInvoke(function: "com.example.units.convert", arguments: [.string(nonASCII), .double(3)]),
            .checkInvoke(function: "", arguments: []),
        ]
        messages += functionValues.map { .functionResult(.value($0)) }
        messages += events.enumerated().map { .call(plugin: $0.offset == 0 ? .max : UInt32($0.offset), request: $0.element) }
        messages += answers.map { .answer($0) }
        messages += FilesOperation.allCases.map {
            .files(operation: $0, path: nonASCII, secondPath: "Documents/b", data: [0, 255], flags: 0)
        }
        return messages.enumerated().map { index, message in
            let requestID: UInt64 = message.kind.carriesRequestID ? (index.isMultiple(of: 2) ? .max : UInt64(index + 1)) : 0
            return ReceivedMessage(message, requestID: requestID)
        }
    }()
}
