/// A value passed to or returned by a plugin function, on the Swift side.
///
/// Integers travel as 64-bit values whatever the declared width: an argument is
/// checked against the width (`.int(300)` for an `int8` is out of range), and a
/// result comes back as `.int` for a signed type and `.uint` for an unsigned one.
public enum PluginValue: Sendable, Hashable, CustomStringConvertible {
    /// The result of a `void` function.
    case void
    /// A `bool`.
    case bool(Bool)
    /// A signed integer: the result of an `intN` function; an argument for any integer type it fits.
    case int(Int64)
    /// An unsigned integer: the result of a `uintN` function; an argument for any integer type it fits.
    case uint(UInt64)
    /// A `float`; also accepted for a `double` argument.
    case float(Float)
    /// A `double`; also accepted for a `float` argument when it is within `float`'s range (rounded to nearest).
    case double(Double)
    /// A `string` (must not contain a NUL character as an argument).
    case string(String)
    /// A `bytes` buffer.
    case bytes([UInt8])
    /// A `pointer`, as its address (0 is NULL): opaque, passed through.
    case pointer(UInt)

    /// What kind of value this is, for error messages: "signed integer", "string", "bytes".
    public var kind: String {
        switch self {
        case .void: "void"
        case .bool: "bool"
        case .int: "signed integer"
        case .uint: "unsigned integer"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .bytes: "bytes"
        case .pointer: "pointer"
        }
    }

    /// The value as a reader would write it: `true`, `-5`, `2.5`, `"text"`, `bytes(3)`, `0x7f00…`.
    public var description: String {
        switch self {
        case .void: "void"
        case .bool(let value): String(value)
        case .int(let value): String(value)
        case .uint(let value): String(value)
        case .float(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): "\"\(value)\""
        case .bytes(let value): "bytes(\(value.count))"
        case .pointer(let value): "0x" + String(value, radix: 16)
        }
    }
}
