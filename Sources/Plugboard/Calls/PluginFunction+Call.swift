import CFFI
import CFaultReporter
import CPlugboard
import Glibc

extension PluginFunction {
    /// Checks `arguments` against the signature, converts them to C, and calls the
    /// function as ``call(frame:of:record:label:)`` does.
    ///
    /// One allocation per call holds everything (on the stack when small), laid out by
    /// ``CallInterface``: one 8-byte slot per C parameter, the result, the parameter
    /// pointer array, and the copies of string and buffer arguments (the payload).
    func call(_ arguments: [PluginValue], of resolved: ResolvedFunction, record: CallRecord,
              label: UnsafePointer<pbf_label_t>) throws(PluginCallError) -> PluginValue {
        let types = signature.arguments
        guard arguments.count == types.count else {
            throw .wrongArgumentCount(resolved.address, expected: types.count, given: arguments.count)
        }
        var payloadSize = 0
        if interface.hasPayload {
            for value in arguments { payloadSize += ArgumentWriter.payloadSize(of: value) }
        }
        return try withUnsafeTemporaryAllocation(byteCount: interface.frameSize + payloadSize, alignment: 16) { frame throws(PluginCallError) in
            guard let base = frame.baseAddress else {
                throw .invalidArgument(resolved.address, position: 1, reason: "no memory for the call")
            }
            let writer = ArgumentWriter(frame: base, interface: interface)
            var payload = base + interface.frameSize
            for position in types.indices {
                try writer.write(arguments[position], as: types[position], parameter: interface.firstParameter[position],
                                 payload: payload, position: position + 1, of: resolved)
                if interface.hasPayload { payload += ArgumentWriter.payloadSize(of: arguments[position]) }
            }
            return try call(frame: base, of: resolved, record: record, label: label)
        }
    }

    /// Calls the function with the arguments written in `frame` (checked and converted by an
    /// ``ArgumentWriter``), recorded in `record` as `label`'s code, so a crash or a timeout
    /// names the plugin and the function, and converts the result back, copying a string or
    /// buffer and then releasing it. `resolved`, this function as resolved, names it in an error.
    func call(frame: UnsafeMutableRawPointer, of resolved: ResolvedFunction, record: CallRecord,
              label: UnsafePointer<pbf_label_t>) throws(PluginCallError) -> PluginValue {
        let outer = record.begin(callbackName)
        record.enter(label)
        defer { record.end(resuming: outer) }
        interface.call(function, frame: frame)
        return try result(at: frame + interface.resultOffset, of: resolved)
    }

    /// The value the call left at `result`, converted; a string or buffer is copied, then released.
    /// Runs inside the call's record: `release` is plugin code too.
    private func result(at result: UnsafeMutableRawPointer, of resolved: ResolvedFunction) throws(PluginCallError) -> PluginValue {
        switch signature.result {
        case .void: return .void
        case .bool: return .bool(UInt8(truncatingIfNeeded: result.load(as: ffi_arg.self)) != 0)
        case .int8: return .int(Int64(Int8(truncatingIfNeeded: result.load(as: ffi_sarg.self))))
        case .int16: return .int(Int64(Int16(truncatingIfNeeded: result.load(as: ffi_sarg.self))))
        case .int32: return .int(Int64(Int32(truncatingIfNeeded: result.load(as: ffi_sarg.self))))
        case .int64: return .int(result.load(as: Int64.self))
        case .uint8: return .uint(UInt64(UInt8(truncatingIfNeeded: result.load(as: ffi_arg.self))))
        case .uint16: return .uint(UInt64(UInt16(truncatingIfNeeded: result.load(as: ffi_arg.self))))
        case .uint32: return .uint(UInt64(UInt32(truncatingIfNeeded: result.load(as: ffi_arg.self))))
        case .uint64: return .uint(result.load(as: UInt64.self))
        case .float: return .float(result.load(as: Float.self))
        case .double: return .double(result.load(as: Double.self))
        case .pointer: return .pointer(result.load(as: UInt.self))
        case .string:
            guard let text = result.load(as: UnsafeMutablePointer<CChar>?.self) else {
                throw .invalidResult(resolved.address, reason: "a NULL string")
            }
            let copy = String(validatingCString: text)
            release?(text)
            guard let copy else { throw .invalidResult(resolved.address, reason: "a string that is not valid UTF-8") }
            guard copy.utf8.count <= ByteCount.valueLimit else {
                throw .invalidResult(resolved.address, reason: "a string of " + ByteCount.overLimit(copy.utf8.count, limit: ByteCount.valueLimit))
            }
            return .string(copy)
        case .bytes:
            let bytes = result.load(as: pb_bytes_t.self)
            guard let size = ByteCount.checked(bytes.size, limit: ByteCount.valueLimit) else {
                if let data = bytes.data { release?(UnsafeMutableRawPointer(mutating: data)) }
                throw .invalidResult(resolved.address, reason: "a size of " + ByteCount.overLimit(bytes.size, limit: ByteCount.valueLimit))
            }
            guard let data = bytes.data else {
                guard size == 0 else {
                    throw .invalidResult(resolved.address, reason: "bytes with a NULL data pointer and a size of \(size)")
                }
                return .bytes([])
            }
            let copy = Array(UnsafeBufferPointer(start: data, count: size))
            release?(UnsafeMutableRawPointer(mutating: data))
            return .bytes(copy)
        }
    }
}

/// Writes a call's arguments as C into a frame laid out by a ``CallInterface``: each C
/// parameter's value in its 8-byte slot and the slot's address in the parameter pointer
/// array; a string or buffer is copied to a payload the caller provides
/// (``payloadSize(of:)`` bytes) and its slot points there.
struct ArgumentWriter {
    private let slots: UnsafeMutableRawPointer
    private let pointers: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    /// A writer into `frame`, laid out as `interface` says.
    init(frame: UnsafeMutableRawPointer, interface: CallInterface) {
        slots = frame
        pointers = (frame + interface.pointersOffset).bindMemory(to: UnsafeMutableRawPointer?.self,
                                                                   capacity: max(interface.parameterCount, 1))
    }

    /// The payload bytes `value` takes: a string's UTF-8 or a buffer's bytes and a NUL byte; 0 for any other value.
    @inline(__always)
    static func payloadSize(of value: PluginValue) -> Int {
        switch value {
        case .string(let text): text.utf8.count + 1
        case .bytes(let bytes): bytes.count + 1
        default: 0
        }
    }

    /// Writes `value` as argument `position` (1-based) of type `type` of `function` (named in
    /// an error), starting at C parameter `parameter`, a string or buffer copied to `payload`;
    /// or throws why it cannot be. Inlined into the call's argument loop.
    @inline(__always)
    func write(_ value: PluginValue, as type: FunctionType, parameter: Int, payload: UnsafeMutableRawPointer,
               position: Int, of function: ResolvedFunction) throws(PluginCallError) {
        func wrongType() -> PluginCallError {
            .wrongArgumentType(function.address, position: position, expected: type, given: value.kind)
        }
        switch value {
        case .bool(let flag):
            guard type == .bool else { throw wrongType() }
            store(UInt8(flag ? 1 : 0), at: parameter)
        case .float(let number):
            switch type {
            case .float: store(number, at: parameter)
            case .double: store(Double(number), at: parameter)
            default: throw wrongType()
            }
        case .double(let number):
            switch type {
            case .double: store(number, at: parameter)
            case .float:
                let narrowed = Float(number)
                guard narrowed.isFinite || !number.isFinite else {
                    throw .valueOutOfRange(function.address, position: position, expected: type, value: String(number))
                }
                store(narrowed, at: parameter)
            default: throw wrongType()
            }
        case .pointer(let location):
            guard type == .pointer else { throw wrongType() }
            store(location, at: parameter)
        case .string(let text):
            guard type == .string else { throw wrongType() }
            guard Self.copy(text, to: payload) else {
                throw .invalidArgument(function.address, position: position, reason: "the string contains a NUL character")
            }
            store(UnsafeRawPointer(payload), at: parameter)
        case .bytes(let bytes):
            guard type == .bytes else { throw wrongType() }
            bytes.withUnsafeBufferPointer { Self.copy($0, to: payload) }
            store(UnsafeRawPointer(payload), at: parameter)
            store(bytes.count, at: parameter + 1)
        case .int(let number):
            guard let (bits, signed) = type.integer else { throw wrongType() }
            let fits = signed ? bits == 64 || (number >= -(1 << (bits - 1)) && number < 1 << (bits - 1))
                              : number >= 0 && (bits == 64 || number < 1 << bits)
            guard fits else { throw .valueOutOfRange(function.address, position: position, expected: type, value: String(number)) }
            storeInteger(UInt64(bitPattern: number), bits: bits, at: parameter)
        case .uint(let number):
            guard let (bits, signed) = type.integer else { throw wrongType() }
            let fits = number <= (signed ? UInt64(1) << (bits - 1) - 1 : bits == 64 ? .max : UInt64(1) << bits - 1)
            guard fits else { throw .valueOutOfRange(function.address, position: position, expected: type, value: String(number)) }
            storeInteger(number, bits: bits, at: parameter)
        case .void:
            throw wrongType()
        }
    }

    /// C parameter `parameter`: `value` in its slot.
    private func store<Value>(_ value: Value, at parameter: Int) {
        let slot = slots + parameter * 8
        slot.storeBytes(of: value, as: Value.self)
        pointers[parameter] = slot
    }

    /// C parameter `parameter`, an integer of `bits` bits with `pattern`'s low bits.
    private func storeInteger(_ pattern: UInt64, bits: Int, at parameter: Int) {
        switch bits {
        case 8: store(UInt8(truncatingIfNeeded: pattern), at: parameter)
        case 16: store(UInt16(truncatingIfNeeded: pattern), at: parameter)
        case 32: store(UInt32(truncatingIfNeeded: pattern), at: parameter)
        default: store(pattern, at: parameter)
        }
    }

    /// Copies `text`'s UTF-8 and a NUL terminator to `payload`, in one pass over contiguous
    /// storage; false when `text` holds a NUL character (it would end the C string early).
    private static func copy(_ text: String, to payload: UnsafeMutableRawPointer) -> Bool {
        // Read in place when the text is contiguous UTF-8 (a native string): no copy of the string,
        // so no reference counting; else made contiguous first.
        if let copied = text.utf8.withContiguousStorageIfAvailable({ copy(checking: $0, to: payload) }) { return copied }
        var text = text
        return text.withUTF8 { copy(checking: $0, to: payload) }
    }

    /// Copies `utf8` as ``copy(_:to:)-(String,_)`` does; false when it holds a NUL.
    private static func copy(checking utf8: UnsafeBufferPointer<UInt8>, to payload: UnsafeMutableRawPointer) -> Bool {
        copy(utf8, to: payload)
        return memchr(payload, 0, utf8.count) == nil
    }

    /// Copies `bytes` and a NUL byte to `payload` (a string's terminator; for a buffer, it
    /// keeps a zero-length one's pointer valid).
    private static func copy(_ bytes: UnsafeBufferPointer<UInt8>, to payload: UnsafeMutableRawPointer) {
        if let source = bytes.baseAddress { payload.copyMemory(from: source, byteCount: bytes.count) }
        payload.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
    }
}
