import CFFI
import CFaultReporter
import CPlugboard
import Glibc

extension PluginFunction {
    /// Checks `arguments` against the signature, converts them to C, calls the
    /// function through its prepared libffi call (recorded in `record` as `label`'s
    /// code, so a crash or a timeout names the plugin and the function), and
    /// converts the result back, copying a string or buffer and then releasing it.
    ///
    /// One allocation per call holds everything (on the stack when small), laid out by
    /// ``PreparedCall``: one 8-byte slot per C parameter, the result, the parameter
    /// pointer array, and the copies of string and buffer arguments (the payload).
    func call(_ arguments: [PluginValue], address: FunctionAddress, record: CallRecord,
              label: UnsafePointer<pbf_label_t>) throws(PluginCallError) -> PluginValue {
        let types = signature.arguments
        guard arguments.count == types.count else {
            throw .wrongArgumentCount(address, expected: types.count, given: arguments.count)
        }
        var payload = 0
        if prepared.hasPayload {
            for value in arguments {
                switch value {
                case .string(let text): payload += text.utf8.count + 1
                case .bytes(let bytes): payload += bytes.count + 1
                default: break
                }
            }
        }
        return try withUnsafeTemporaryAllocation(byteCount: prepared.frameSize + payload, alignment: 16) { frame throws(PluginCallError) in
            guard let base = frame.baseAddress else {
                throw .invalidArgument(address, position: 1, reason: "no memory for the call")
            }
            let pointers = (base + prepared.pointersOffset).bindMemory(to: UnsafeMutableRawPointer?.self, capacity: prepared.parameterCount)
            var writer = ArgumentWriter(slots: base, pointers: pointers, payload: base + prepared.frameSize)
            for position in types.indices {
                try writer.write(arguments[position], as: types[position], position: position + 1, of: address)
            }
            let result = base + prepared.resultOffset
            record.begin(callbackName)
            record.enter(label)
            defer { record.leave() }
            prepared.call(function, result: result, arguments: pointers)
            return try self.result(at: result, address: address)
        }
    }

    /// The value the call left at `result`, converted; a string or buffer is copied, then released.
    /// Runs inside the call's record: `release` is plugin code too.
    private func result(at result: UnsafeMutableRawPointer, address: FunctionAddress) throws(PluginCallError) -> PluginValue {
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
                throw .invalidResult(address, reason: "a NULL string")
            }
            let copy = String(validatingCString: text)
            release?(text)
            guard let copy else { throw .invalidResult(address, reason: "a string that is not valid UTF-8") }
            return .string(copy)
        case .bytes:
            let bytes = result.load(as: pb_bytes_t.self)
            guard let data = bytes.data else {
                guard bytes.size == 0 else {
                    throw .invalidResult(address, reason: "bytes with a NULL data pointer and a size of \(bytes.size)")
                }
                return .bytes([])
            }
            let copy = Array(UnsafeBufferPointer(start: data, count: bytes.size))
            release?(UnsafeMutableRawPointer(mutating: data))
            return .bytes(copy)
        }
    }
}

/// Writes one call's arguments as C: each C parameter's value in its 8-byte slot,
/// the slot's address in the parameter pointer array, string and buffer copies in the payload.
private struct ArgumentWriter {
    let slots: UnsafeMutableRawPointer
    let pointers: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    var payload: UnsafeMutableRawPointer
    private var parameter = 0

    init(slots: UnsafeMutableRawPointer, pointers: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
         payload: UnsafeMutableRawPointer) {
        self.slots = slots
        self.pointers = pointers
        self.payload = payload
    }

    /// Writes `value` as argument `position` (1-based) of type `type` of the function at
    /// `address`, or throws why it cannot be. Inlined into the call's argument loop.
    @inline(__always)
    mutating func write(_ value: PluginValue, as type: FunctionType, position: Int, of address: FunctionAddress) throws(PluginCallError) {
        func wrongType() -> PluginCallError {
            .wrongArgumentType(address, position: position, expected: type, given: value.kind)
        }
        switch value {
        case .bool(let flag):
            guard type == .bool else { throw wrongType() }
            next(UInt8(flag ? 1 : 0))
        case .float(let number):
            switch type {
            case .float: next(number)
            case .double: next(Double(number))
            default: throw wrongType()
            }
        case .double(let number):
            switch type {
            case .double: next(number)
            case .float:
                let narrowed = Float(number)
                guard narrowed.isFinite || !number.isFinite else {
                    throw .valueOutOfRange(address, position: position, expected: type, value: String(number))
                }
                next(narrowed)
            default: throw wrongType()
            }
        case .pointer(let location):
            guard type == .pointer else { throw wrongType() }
            next(location)
        case .string(let text):
            guard type == .string else { throw wrongType() }
            guard let copy = copyToPayload(text) else {
                throw .invalidArgument(address, position: position, reason: "the string contains a NUL character")
            }
            next(UnsafeRawPointer(copy))
        case .bytes(let bytes):
            guard type == .bytes else { throw wrongType() }
            next(UnsafeRawPointer(bytes.withUnsafeBufferPointer { copyToPayload($0) }))
            next(bytes.count)
        case .int(let number):
            guard let (bits, signed) = type.integer else { throw wrongType() }
            let fits = signed ? bits == 64 || (number >= -(1 << (bits - 1)) && number < 1 << (bits - 1))
                              : number >= 0 && (bits == 64 || number < 1 << bits)
            guard fits else { throw .valueOutOfRange(address, position: position, expected: type, value: String(number)) }
            nextInteger(UInt64(bitPattern: number), bits: bits)
        case .uint(let number):
            guard let (bits, signed) = type.integer else { throw wrongType() }
            let fits = number <= (signed ? UInt64(1) << (bits - 1) - 1 : bits == 64 ? .max : UInt64(1) << bits - 1)
            guard fits else { throw .valueOutOfRange(address, position: position, expected: type, value: String(number)) }
            nextInteger(number, bits: bits)
        case .void:
            throw wrongType()
        }
    }

    /// The next C parameter: `value` in its slot.
    private mutating func next<Value>(_ value: Value) {
        let slot = slots + parameter * 8
        slot.storeBytes(of: value, as: Value.self)
        pointers[parameter] = slot
        parameter += 1
    }

    /// The next C parameter, an integer of `bits` bits with `pattern`'s low bits.
    private mutating func nextInteger(_ pattern: UInt64, bits: Int) {
        switch bits {
        case 8: next(UInt8(truncatingIfNeeded: pattern))
        case 16: next(UInt16(truncatingIfNeeded: pattern))
        case 32: next(UInt32(truncatingIfNeeded: pattern))
        default: next(pattern)
        }
    }

    /// Copies `text`'s UTF-8 and a NUL terminator into the payload, in one pass over
    /// contiguous storage; returns where the copy starts, or nil when `text` holds a NUL
    /// character (it would end the C string early).
    private mutating func copyToPayload(_ text: String) -> UnsafeMutableRawPointer? {
        // Read in place when the text is contiguous UTF-8 (a native string): no copy of the string,
        // so no reference counting; else made contiguous first.
        if let copied = text.utf8.withContiguousStorageIfAvailable({ copyToPayload(checking: $0) }) { return copied }
        var text = text
        return text.withUTF8 { copyToPayload(checking: $0) }
    }

    /// Copies `utf8` as ``copyToPayload(_:)-(String)`` does; nil when it holds a NUL.
    private mutating func copyToPayload(checking utf8: UnsafeBufferPointer<UInt8>) -> UnsafeMutableRawPointer? {
        let start = copyToPayload(utf8)
        return memchr(start, 0, utf8.count) == nil ? start : nil
    }

    /// Copies `bytes` and a NUL byte into the payload (a string's terminator; for a buffer,
    /// it keeps a zero-length one's pointer valid); returns where they start.
    private mutating func copyToPayload(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeMutableRawPointer {
        let start = payload
        if let source = bytes.baseAddress { start.copyMemory(from: source, byteCount: bytes.count) }
        payload += bytes.count
        payload.storeBytes(of: 0, as: UInt8.self)
        payload += 1
        return start
    }
}
