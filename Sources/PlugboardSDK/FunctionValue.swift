import CPlugboard

/// An argument or the result of ``PlugboardHost/invoke(_:_:)``: the kinds of `pb_value_t`.
///
/// Integers travel as 64 bits whatever the declared width; the host checks each argument
/// against the function's declared signature (`300` for an `int8` is refused, a string for a
/// `double` too).
public enum FunctionValue: Sendable, Hashable {
    /// No value: the result of a `void` function.
    case void
    /// For a `bool` parameter or result.
    case bool(Bool)
    /// For any integer parameter it fits; the result of an `intN` function.
    case int(Int64)
    /// For any integer parameter it fits; the result of a `uintN` function.
    case uint(UInt64)
    /// For a `float` or `double` parameter; the result of a `float` function.
    case float(Float)
    /// For a `double` parameter, or a `float` one within float's range; the result of a `double` function.
    case double(Double)
    /// For a `string` parameter or result (UTF-8; a NUL inside is refused before the call).
    case string(String)
    /// For a `bytes` parameter or result.
    case bytes([UInt8])
    /// For a `pointer` parameter or result; only between plugins in one process.
    case pointer(UInt)

    /// A copy of `value`, which the host wrote; nil for an unknown kind.
    init?(copying value: pb_value_t) {
        switch value.kind {
        case PB_VALUE_VOID: self = .void
        case PB_VALUE_BOOL: self = .bool(value.boolean)
        case PB_VALUE_INT: self = .int(value.integer)
        case PB_VALUE_UINT: self = .uint(value.unsigned_integer)
        case PB_VALUE_FLOAT: self = .float(value.float_value)
        case PB_VALUE_DOUBLE: self = .double(value.double_value)
        case PB_VALUE_STRING: self = .string(value.string.map { String(cString: $0) } ?? "")
        case PB_VALUE_BYTES: self = .bytes(Array(UnsafeBufferPointer(start: value.bytes.data, count: value.bytes.size)))
        case PB_VALUE_POINTER: self = .pointer(UInt(bitPattern: value.pointer))
        default: return nil
        }
    }
}
