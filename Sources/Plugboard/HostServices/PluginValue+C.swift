import CPlugboard
import Glibc

extension PluginValue {
    /// Reads argument `position` (1-based) as a plugin passed it to `invoke`, or says why it cannot be read.
    init(_ value: pb_value_t, position: Int) throws(InvokeFailure) {
        func invalid(_ reason: String) -> InvokeFailure {
            InvokeFailure(status: PB_ERR_INVALID_ARGUMENT, message: "argument \(position): \(reason)")
        }
        switch value.kind {
        case PB_VALUE_BOOL: self = .bool(value.boolean)
        case PB_VALUE_INT: self = .int(value.integer)
        case PB_VALUE_UINT: self = .uint(value.unsigned_integer)
        case PB_VALUE_FLOAT: self = .float(value.float_value)
        case PB_VALUE_DOUBLE: self = .double(value.double_value)
        case PB_VALUE_STRING:
            guard let text = value.string else { throw invalid("the string is NULL") }
            guard let string = String(validatingCString: text) else { throw invalid("the string is not valid UTF-8") }
            guard string.utf8.count <= ByteCount.valueLimit else {
                throw invalid("the string is " + ByteCount.overLimit(string.utf8.count, limit: ByteCount.valueLimit))
            }
            self = .string(string)
        case PB_VALUE_BYTES:
            guard let size = ByteCount.checked(value.bytes.size, limit: ByteCount.valueLimit) else {
                throw invalid("bytes.size is " + ByteCount.overLimit(value.bytes.size, limit: ByteCount.valueLimit))
            }
            guard let data = value.bytes.data else {
                guard size == 0 else { throw invalid("bytes.data is NULL but bytes.size is \(size)") }
                self = .bytes([])
                return
            }
            self = .bytes(Array(UnsafeBufferPointer(start: data, count: size)))
        case PB_VALUE_POINTER: self = .pointer(UInt(bitPattern: value.pointer))
        default: throw invalid("kind \(value.kind) is not a PB_VALUE_* an argument takes")
        }
    }

    /// The value as `invoke` writes it for the caller: a string or bytes copied into memory
    /// the caller frees with `release_value` (nil when that memory cannot be had).
    var cValue: pb_value_t? {
        var value = pb_value_t()
        switch self {
        case .void: value.kind = PB_VALUE_VOID
        case .bool(let flag): value.kind = PB_VALUE_BOOL; value.boolean = flag
        case .int(let number): value.kind = PB_VALUE_INT; value.integer = number
        case .uint(let number): value.kind = PB_VALUE_UINT; value.unsigned_integer = number
        case .float(let number): value.kind = PB_VALUE_FLOAT; value.float_value = number
        case .double(let number): value.kind = PB_VALUE_DOUBLE; value.double_value = number
        case .pointer(let address): value.kind = PB_VALUE_POINTER; value.pointer = UnsafeMutableRawPointer(bitPattern: address)
        case .string(let text):
            guard let copy = Self.copy(Array(text.utf8)) else { return nil }
            value.kind = PB_VALUE_STRING
            value.string = UnsafeRawPointer(copy).assumingMemoryBound(to: CChar.self)
        case .bytes(let bytes):
            guard let copy = Self.copy(bytes) else { return nil }
            value.kind = PB_VALUE_BYTES
            value.bytes = pb_bytes_t(data: UnsafePointer(copy), size: bytes.count)
        }
        return value
    }

    /// `bytes` and a NUL byte in memory from `malloc` (what `release_value` frees).
    private static func copy(_ bytes: [UInt8]) -> UnsafeMutablePointer<UInt8>? {
        guard let memory = malloc(bytes.count + 1)?.assumingMemoryBound(to: UInt8.self) else { return nil }
        _ = UnsafeMutableBufferPointer(start: memory, count: bytes.count).initialize(from: bytes)
        memory[bytes.count] = 0
        return memory
    }
}
