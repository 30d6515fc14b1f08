import PlugboardPluginAPI

/// What a `call` asks of one plugin in the worker: a lifecycle event, or a saved-state call. Its
/// text must be UTF-8 (text that is not is malformed), as the C ABI promises plugins.
public enum CallRequest: Sendable, Equatable {
    /// A lifecycle event.
    case event(LifecycleEvent)
    /// Asks for the plugin's saved state (since 1.4); answered `state` or `refused`.
    case saveState
    /// Gives back the state a previous run saved, and the plugin version that saved it
    /// (since 1.4); answered `returned` or `refused`.
    case restoreState(savedVersion: [UInt8], state: [UInt8])

    /// The wire number of `save_state`, after the first events' (``LifecycleEvent/Kind/wireCode``).
    static let saveStateCode: UInt8 = 16
    /// The wire number of `restore_state`.
    static let restoreStateCode: UInt8 = 17

    /// The C slot it calls, as failure messages name it.
    public var callbackName: StaticString {
        switch self {
        case .event(let event): event.kind.callbackName
        case .saveState: "save_state"
        case .restoreState: "restore_state"
        }
    }

    /// The protocol minor (of major 1) that introduced it: the host sends it only to a worker
    /// whose minor is at least this.
    public var introducedInMinor: UInt16 {
        switch self {
        case .event(let event): event.kind.introducedInMinor
        case .saveState, .restoreState: 4
        }
    }

    /// Appends the call's number, then its arguments: each event argument by its parameter's
    /// form (text and bytes length-prefixed, a duration as whole milliseconds in a `u32`).
    func encode(into encoder: inout WireEncoder) {
        switch self {
        case .event(let event):
            encoder.append(event.kind.wireCode)
            for argument in event.arguments {
                switch argument {
                case .text(let text): text.withCText { text, count in encoder.append(bytes: UnsafeRawBufferPointer(start: text, count: count)) }
                case .bytes(let bytes): encoder.append(bytes: bytes)
                case .duration(let duration): encoder.append(Self.milliseconds(duration))
                }
            }
        case .saveState:
            encoder.append(Self.saveStateCode)
        case .restoreState(let savedVersion, let state):
            encoder.append(Self.restoreStateCode)
            encoder.append(bytes: savedVersion)
            encoder.append(bytes: state)
        }
    }

    /// Reads a call's number and the arguments it takes.
    static func decode(from decoder: inout WireDecoder) throws(WorkerProtocolError) -> CallRequest {
        let code = try decoder.readUInt8("call.event")
        switch code {
        case saveStateCode:
            return .saveState
        case restoreStateCode:
            return .restoreState(savedVersion: try decoder.readUTF8Bytes("call.saved-version"), state: try decoder.readBytes("call.state"))
        default:
            guard let kind = LifecycleEvent.Kind(wireCode: code) else {
                throw .malformed(field: "call.event", cause: .invalidValue(UInt64(code)))
            }
            var arguments: [EventArgument] = []
            for parameter in kind.parameters {
                switch parameter.form {
                case .text, .jsonObject: arguments.append(.text(EventText(validUTF8: try decoder.readUTF8Bytes(parameter.wireField))))
                case .bytes: arguments.append(.bytes(try decoder.readBytes(parameter.wireField)))
                case .milliseconds: arguments.append(.duration(.milliseconds(try decoder.readUInt32(parameter.wireField))))
                }
            }
            guard let event = LifecycleEvent(kind: kind, arguments: arguments) else {
                throw .malformed(field: "call.event", cause: .invalidValue(UInt64(code)))
            }
            return .event(event)
        }
    }

    /// `duration` in whole milliseconds, clamped to a `u32` (negative as 0).
    static func milliseconds(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        guard !overflow else { return .max }
        return UInt32(clamping: product.addingReportingOverflow(attoseconds / 1_000_000_000_000_000).partialValue)
    }
}
