import PlugboardPluginAPI

/// What the host answers to a worker's `invoke` (since 1.3): the invoked function's
/// result, or a status and a sentence for the plugin that invoked it.
///
/// Wire format: a `u8` outcome, `0` then a ``PluginValue``, or `1` then
/// `i32` status (a negative `PB_ERR_*`) and `string` message.
public enum InvokeResult: Sendable, Equatable {
    /// The function returned this value.
    case value(PluginValue)
    /// The invocation failed: a `PB_ERR_*` status and a sentence naming the function and the cause.
    case failure(status: Int32, message: String)

    func encode(into encoder: inout WireEncoder) {
        switch self {
        case .value(let value):
            encoder.append(UInt8(0))
            value.encode(into: &encoder)
        case .failure(let status, let message):
            encoder.append(UInt8(1))
            encoder.append(status)
            encoder.append(string: message)
        }
    }

    static func decode(from decoder: inout WireDecoder) throws(WorkerProtocolError) -> InvokeResult {
        let outcome = try decoder.readUInt8("invoke-reply.outcome")
        switch outcome {
        case 0: return .value(try PluginValue.decode(from: &decoder, "invoke-reply.value"))
        case 1:
            return .failure(status: try decoder.readInt32("invoke-reply.status"),
                            message: try decoder.readString("invoke-reply.message"))
        default: throw .malformed(field: "invoke-reply.outcome", cause: .invalidValue(UInt64(outcome)))
        }
    }
}
