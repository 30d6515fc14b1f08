import PlugboardPluginAPI

extension WorkerMessage {
    /// The whole frame (length prefix and payload) for this message.
    ///
    /// Throws `frameTooLarge` for a payload over `WireFormat.maximumPayloadLength`,
    /// and `malformed` for a request id that breaks `Kind.carriesRequestID`.
    public func encodedFrame(requestID: UInt64) throws(WorkerProtocolError) -> [UInt8] {
        var encoder = WireEncoder()
        try encodeFrame(requestID: requestID, into: &encoder)
        return encoder.bytes
    }

    /// Decodes one whole frame; the bytes must hold exactly one.
    public static func decode(frame: [UInt8]) throws(WorkerProtocolError) -> ReceivedMessage {
        let length = try WireFormat.payloadLength(prefix: frame, at: 0, available: frame.count)
        let expected = WireFormat.lengthPrefixSize + length
        guard frame.count >= expected else { throw .truncatedFrame(received: frame.count, expected: expected) }
        guard frame.count == expected else {
            throw .malformed(field: "frame", cause: .trailingBytes(frame.count - expected))
        }
        var decoder = WireDecoder(frame, range: WireFormat.lengthPrefixSize..<expected)
        return try decodePayload(from: &decoder)
    }

    /// Appends the frame to `encoder`, which may already hold other frames.
    func encodeFrame(requestID: UInt64, into encoder: inout WireEncoder) throws(WorkerProtocolError) {
        try Self.checkRequestID(requestID, of: kind)
        let prefixOffset = encoder.bytes.count
        encoder.append(UInt32(0))
        encodePayload(requestID: requestID, into: &encoder)
        let length = encoder.bytes.count - prefixOffset - WireFormat.lengthPrefixSize
        guard length <= WireFormat.maximumPayloadLength else {
            throw .frameTooLarge(length: length, maximum: WireFormat.maximumPayloadLength)
        }
        encoder.overwrite(UInt32(length), at: prefixOffset)
    }

    /// Reads one payload, all of what `decoder` holds.
    static func decodePayload(from decoder: inout WireDecoder) throws(WorkerProtocolError) -> ReceivedMessage {
        let rawKind = try decoder.readUInt8("kind")
        guard let kind = Kind(rawValue: rawKind) else {
            throw .malformed(field: "kind", cause: .unknownKind(rawKind))
        }
        let requestID = try decoder.readUInt64("request-id")
        try checkRequestID(requestID, of: kind)
        let message = try decodeFields(of: kind, from: &decoder)
        try decoder.requireEnd(of: kind.name)
        return ReceivedMessage(message, requestID: requestID)
    }

    private static func checkRequestID(_ requestID: UInt64, of kind: Kind) throws(WorkerProtocolError) {
        if kind.carriesRequestID && requestID == 0 {
            throw .malformed(field: "request-id", cause: .missingRequestID)
        }
        if !kind.carriesRequestID && requestID != 0 {
            throw .malformed(field: "request-id", cause: .unexpectedRequestID(requestID))
        }
    }

    private func encodePayload(requestID: UInt64, into encoder: inout WireEncoder) {
        encoder.append(kind.rawValue)
        encoder.append(requestID)
        switch self {
        case .hello(let version, let abiMajor, let abiMinor):
            encoder.append(version.major)
            encoder.append(version.minor)
            encoder.append(abiMajor)
            encoder.append(abiMinor)
        case .load(let path, let allowInsecure):
            encoder.append(string: path)
            encoder.append(allowInsecure)
        case .call(let plugin, let request):
            encoder.append(plugin)
            request.encode(into: &encoder)
        case .serviceReply(let status, let payload, let message):
            encoder.append(status)
            encoder.append(bytes: payload)
            encoder.append(string: message)
        case .helloReply(let version, let workerPID):
            encoder.append(version.major)
            encoder.append(version.minor)
            encoder.append(workerPID)
        case .loaded(let reportJSON, let file):
            encoder.append(bytes: reportJSON)
            file?.encode(into: &encoder)
        case .answer(let answer):
            answer.encode(into: &encoder)
        case .log(let pluginID, let level, let message):
            encoder.append(optionalString: pluginID)
            encoder.append(level)
            encoder.append(string: message)
        case .files(let operation, let path, let secondPath, let data, let flags):
            encoder.append(operation.rawValue)
            encoder.append(string: path)
            encoder.append(string: secondPath)
            encoder.append(bytes: data)
            encoder.append(flags)
        case .completion(let notification, let plugin, let result):
            encoder.append(notification)
            encoder.append(plugin)
            encoder.append(result)
        case .stage(let function):
            encoder.append(string: function.rawValue)
        case .unload(let linger):
            encoder.append(linger)
        case .unloaded(let census):
            encoder.append(census.otherThreadCalls)
            encoder.append(census.otherThreads)
            encoder.append(census.callsAfterDeinit)
        case .functionCall(let plugin, let function, let depth, let arguments):
            encoder.append(plugin)
            encoder.append(function)
            encoder.append(depth)
            PluginValue.encode(arguments, into: &encoder)
        case .invokeReply(let result):
            result.encode(into: &encoder)
        case .functionResult(let result):
            result.encode(into: &encoder)
        case .invoke(let function, let depth, let arguments):
            encoder.append(string: function)
            encoder.append(depth)
            PluginValue.encode(arguments, into: &encoder)
        case .checkInvoke(let function, let arguments):
            encoder.append(string: function)
            PluginValue.encode(arguments, into: &encoder)
        case .deliver(let token, let name, let payload, let sender, let depth):
            encoder.append(token)
            encoder.append(string: name)
            encoder.append(string: payload)
            encoder.append(string: sender)
            encoder.append(depth)
        case .observe(let token, let pluginID, let name):
            encoder.append(token)
            encoder.append(string: pluginID)
            encoder.append(string: name)
        case .stopObserving(let token):
            encoder.append(token)
        case .post(let pluginID, let name, let payload, let depth):
            encoder.append(string: pluginID)
            encoder.append(string: name)
            encoder.append(string: payload)
            encoder.append(depth)
        case .refused(let pluginID, let call, let name, let reason):
            encoder.append(optionalString: pluginID)
            encoder.append(string: call)
            encoder.append(optionalString: name)
            encoder.append(string: reason)
        case .shutdown, .bye, .delivered:
            break
        }
    }

    private static func decodeFields(of kind: Kind, from decoder: inout WireDecoder) throws(WorkerProtocolError) -> WorkerMessage {
        switch kind {
        case .hello:
            return .hello(
                protocolVersion: WorkerProtocolVersion(
                    major: try decoder.readUInt16("hello.protocol-major"),
                    minor: try decoder.readUInt16("hello.protocol-minor")),
                hostABIMajor: try decoder.readUInt32("hello.abi-major"),
                hostABIMinor: try decoder.readUInt32("hello.abi-minor"))
        case .load:
            return .load(path: try decoder.readString("load.path"), allowInsecure: try decoder.readBool("load.allow-insecure"))
        case .call:
            return .call(plugin: try decoder.readUInt32("call.plugin"), request: try CallRequest.decode(from: &decoder))
        case .serviceReply:
            return .serviceReply(
                status: try decoder.readInt32("service-reply.status"),
                payload: try decoder.readBytes("service-reply.payload"),
                message: try decoder.readString("service-reply.message"))
        case .shutdown:
            return .shutdown
        case .helloReply:
            return .helloReply(
                protocolVersion: WorkerProtocolVersion(
                    major: try decoder.readUInt16("hello-reply.protocol-major"),
                    minor: try decoder.readUInt16("hello-reply.protocol-minor")),
                workerPID: try decoder.readInt32("hello-reply.worker-pid"))
        case .loaded:
            let report = try decoder.readBytes("loaded.report")
            return .loaded(reportJSON: report, file: decoder.remaining > 0 ? try FileStamp(from: &decoder) : nil)
        case .answer:
            return .answer(try CallAnswer.decode(from: &decoder))
        case .log:
            return .log(
                pluginID: try decoder.readOptionalString("log.plugin-id"),
                level: try decoder.readInt32("log.level"),
                message: try decoder.readString("log.message"))
        case .files:
            let rawOperation = try decoder.readUInt8("files.operation")
            guard let operation = FilesOperation(rawValue: rawOperation) else {
                throw .malformed(field: "files.operation", cause: .invalidValue(UInt64(rawOperation)))
            }
            return .files(
                operation: operation,
                path: try decoder.readString("files.path"),
                secondPath: try decoder.readString("files.second-path"),
                data: try decoder.readBytes("files.data"),
                flags: try decoder.readUInt32("files.flags"))
        case .completion:
            return .completion(
                notification: try decoder.readUInt64("completion.notification"),
                plugin: try decoder.readUInt32("completion.plugin"),
                result: try decoder.readInt32("completion.result"))
        case .bye:
            return .bye
        case .stage:
            let name = try decoder.readString("stage.name")
            guard let function = LibraryFunction(rawValue: name) else {
                throw .malformed(field: "stage.name", cause: .unknownName(name))
            }
            return .stage(function)
        case .unload:
            return .unload(lingerMilliseconds: try decoder.readUInt32("unload.linger-ms"))
        case .unloaded:
            return .unloaded(ServiceCensus(
                otherThreadCalls: try decoder.readUInt64("unloaded.other-thread-calls"),
                otherThreads: try decoder.readUInt32("unloaded.other-threads"),
                callsAfterDeinit: try decoder.readUInt64("unloaded.calls-after-deinit")))
        case .functionCall:
            return .functionCall(
                plugin: try decoder.readUInt32("function-call.plugin"),
                function: try decoder.readUInt32("function-call.function"),
                depth: try decoder.readUInt32("function-call.depth"),
                arguments: try PluginValue.decodeList(from: &decoder, "function-call.arguments"))
        case .invokeReply:
            return .invokeReply(try InvokeResult.decode(from: &decoder))
        case .functionResult:
            return .functionResult(try FunctionResult.decode(from: &decoder))
        case .invoke:
            return .invoke(
                function: try decoder.readString("invoke.function"),
                depth: try decoder.readUInt32("invoke.depth"),
                arguments: try PluginValue.decodeList(from: &decoder, "invoke.arguments"))
        case .checkInvoke:
            return .checkInvoke(function: try decoder.readString("check-invoke.function"),
                                arguments: try PluginValue.decodeList(from: &decoder, "check-invoke.arguments"))
        case .deliver:
            return .deliver(token: try decoder.readUInt64("deliver.token"), name: try decoder.readString("deliver.name"),
                            payload: try decoder.readString("deliver.payload"), sender: try decoder.readString("deliver.sender"),
                            depth: try decoder.readUInt32("deliver.depth"))
        case .delivered:
            return .delivered
        case .observe:
            return .observe(token: try decoder.readUInt64("observe.token"), pluginID: try decoder.readString("observe.plugin-id"),
                            name: try decoder.readString("observe.name"))
        case .stopObserving:
            return .stopObserving(token: try decoder.readUInt64("stop-observing.token"))
        case .post:
            return .post(pluginID: try decoder.readString("post.plugin-id"), name: try decoder.readString("post.name"),
                         payload: try decoder.readString("post.payload"), depth: try decoder.readUInt32("post.depth"))
        case .refused:
            return .refused(pluginID: try decoder.readOptionalString("refused.plugin-id"), call: try decoder.readString("refused.call"),
                            name: try decoder.readOptionalString("refused.name"), reason: try decoder.readString("refused.reason"))
        }
    }
}

extension WorkerMessage.Kind {
    /// The message's name in WORKER-PROTOCOL.md and in error fields.
    var name: StaticString {
        switch self {
        case .hello: "hello"
        case .load: "load"
        case .call: "call"
        case .serviceReply: "service-reply"
        case .shutdown: "shutdown"
        case .helloReply: "hello-reply"
        case .loaded: "loaded"
        case .answer: "answer"
        case .log: "log"
        case .files: "files"
        case .completion: "completion"
        case .bye: "bye"
        case .stage: "stage"
        case .unload: "unload"
        case .unloaded: "unloaded"
        case .functionCall: "function-call"
        case .invokeReply: "invoke-reply"
        case .functionResult: "function-result"
        case .invoke: "invoke"
        case .deliver: "deliver"
        case .delivered: "delivered"
        case .observe: "observe"
        case .stopObserving: "stop-observing"
        case .post: "post"
        case .refused: "refused"
        case .checkInvoke: "check-invoke"
        }
    }
}
