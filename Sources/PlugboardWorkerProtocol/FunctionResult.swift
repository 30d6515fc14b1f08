import PlugboardPluginAPI

/// What a worker answers to `function-call` (since 1.3): the function's result, or
/// why there is none.
///
/// Wire format: a `u8` outcome, `0` then a ``PluginValue``, or `1` then `bytes`:
/// the host library's typed call error as JSON (its schema belongs to the host
/// library, like the load report's).
public enum FunctionResult: Sendable, Equatable {
    /// The function returned this value.
    case value(PluginValue)
    /// The call was refused or its result could not be taken; the typed error as JSON.
    case error(json: [UInt8])

    func encode(into encoder: inout WireEncoder) {
        switch self {
        case .value(let value):
            encoder.append(UInt8(0))
            value.encode(into: &encoder)
        case .error(let json):
            encoder.append(UInt8(1))
            encoder.append(bytes: json)
        }
    }

    static func decode(from decoder: inout WireDecoder) throws(WorkerProtocolError) -> FunctionResult {
        let outcome = try decoder.readUInt8("function-result.outcome")
        switch outcome {
        case 0: return .value(try PluginValue.decode(from: &decoder, "function-result.value"))
        case 1: return .error(json: try decoder.readBytes("function-result.error"))
        default: throw .malformed(field: "function-result.outcome", cause: .invalidValue(UInt64(outcome)))
        }
    }
}
