import CPlugboard
import PlugboardPluginAPI

extension PluginValue {
    /// A copy of `value`, which the host wrote (an ``PlugboardHost/invoke(_:_:)`` result); nil for an unknown kind.
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
