import CFFI

/// One type of the signature language of `plugboard/functions.h`, by its name there: what the
/// host checks calls against and the Swift SDK derives a plugin function's signature from
/// (both map it to libffi's types here).
public enum FunctionType: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Nothing (a return type only).
    case void
    /// C `bool`.
    case bool
    /// `int8_t`, `int16_t`, `int32_t`, `int64_t`.
    case int8, int16, int32, int64
    /// `uint8_t`, `uint16_t`, `uint32_t`, `uint64_t`.
    case uint8, uint16, uint32, uint64
    /// `float`, `double`.
    case float, double
    /// `const char *`, NUL-terminated UTF-8.
    case string
    /// A byte buffer: `const uint8_t *, size_t` as an argument, `pb_bytes_t` as a result.
    case bytes
    /// `void *`, opaque, passed through.
    case pointer

    /// The name in the signature language.
    public var description: String { rawValue }

    /// How many C parameters an argument of this type is passed as: two for `bytes` (data, size), else one.
    package var cParameterCount: Int { self == .bytes ? 2 : 1 }

    /// For an integer type: its bit width and whether it is signed; nil for the others.
    package var integer: (bits: Int, signed: Bool)? {
        switch self {
        case .int8: (8, true)
        case .int16: (16, true)
        case .int32: (32, true)
        case .int64: (64, true)
        case .uint8: (8, false)
        case .uint16: (16, false)
        case .uint32: (32, false)
        case .uint64: (64, false)
        default: nil
        }
    }

    /// libffi's types of the C parameters one argument of this type is passed as:
    /// one, or two for `bytes` (data, size); none for `void`.
    package var cParameterTypes: [UnsafeMutablePointer<ffi_type>] {
        switch self {
        case .void: []
        case .bytes: [cffi_pointer(), cffi_size()]
        default: scalarFFIType.map { [$0] } ?? []
        }
    }

    /// libffi's own type for this type; nil for `bytes`, a struct the prepared call describes itself.
    package var scalarFFIType: UnsafeMutablePointer<ffi_type>? {
        switch self {
        case .void: cffi_void()
        case .bool: cffi_bool()
        case .int8: cffi_sint8()
        case .int16: cffi_sint16()
        case .int32: cffi_sint32()
        case .int64: cffi_sint64()
        case .uint8: cffi_uint8()
        case .uint16: cffi_uint16()
        case .uint32: cffi_uint32()
        case .uint64: cffi_uint64()
        case .float: cffi_float()
        case .double: cffi_double()
        case .string, .pointer: cffi_pointer()
        case .bytes: nil
        }
    }
}
