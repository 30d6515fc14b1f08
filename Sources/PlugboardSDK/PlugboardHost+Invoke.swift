import CPlugboard
import PlugboardPluginAPI

extension PlugboardHost {
    /// Calls `function`, `"plugin-id.function"` (`"com.example.units.convert"`), that any plugin
    /// declared, with `arguments`, wherever it runs (this process or a worker), and returns a copy
    /// of its result (the host's is released). Thread-safe; the call runs on this thread when the
    /// function is in this process. Throws ``InvokeError`` with the host's status and sentence.
    public func invoke(_ function: String, _ arguments: [PluginValue]) throws(InvokeError) -> PluginValue {
        let table = pointer.table
        // The fields are read only when the host's table covers them (an older host's is shorter).
        let coversInvoke = Int(table.pointee.struct_size)
            >= (MemoryLayout<pb_host_t>.offset(of: \pb_host_t.release_value) ?? .max) + MemoryLayout<UnsafeRawPointer?>.size
        guard coversInvoke, let invoke = table.pointee.invoke, let releaseValue = table.pointee.release_value else {
            throw InvokeError(status: PB_ERR_UNAVAILABLE, message: "this host has no invoke (ABI 1.2 is needed)")
        }
        let values = try CValues(arguments, function: function)
        defer { values.deallocate() }
        var result = pb_value_t()
        var message = [CChar](repeating: 0, count: 1024)
        let status = values.items.withUnsafeBufferPointer { items in
            invoke(table, function, items.baseAddress, items.count, &result, &message, message.count)
        }
        guard status == PB_OK else {
            let sentence = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw InvokeError(status: status, message: sentence)
        }
        defer { releaseValue(table, &result) }
        guard let value = PluginValue(copying: result) else {
            throw InvokeError(status: PB_ERR_IO, message: "\(function): the host answered an unknown kind \(result.kind)")
        }
        return value
    }
}

/// Arguments as `pb_value_t`s, with C copies of their strings and bytes, freed by `deallocate`.
private struct CValues {
    var items: [pb_value_t] = []
    private var copies: [UnsafeMutableRawPointer] = []

    init(_ arguments: [PluginValue], function: String) throws(InvokeError) {
        for (index, argument) in arguments.enumerated() {
            var value = pb_value_t()
            switch argument {
            case .void:
                deallocate()
                throw InvokeError(status: PB_ERR_INVALID_ARGUMENT, message: "\(function): argument \(index + 1) is void, which is no argument")
            case .bool(let bool): value.kind = PB_VALUE_BOOL; value.boolean = bool
            case .int(let int): value.kind = PB_VALUE_INT; value.integer = int
            case .uint(let uint): value.kind = PB_VALUE_UINT; value.unsigned_integer = uint
            case .float(let float): value.kind = PB_VALUE_FLOAT; value.float_value = float
            case .double(let double): value.kind = PB_VALUE_DOUBLE; value.double_value = double
            case .string(let string):
                guard !string.utf8.contains(0) else {
                    deallocate()
                    throw InvokeError(status: PB_ERR_INVALID_ARGUMENT, message: "\(function): argument \(index + 1) contains a NUL byte")
                }
                let copy = copy(Array(string.utf8) + [0])
                value.kind = PB_VALUE_STRING; value.string = UnsafePointer(copy.assumingMemoryBound(to: CChar.self))
            case .bytes(let bytes):
                value.kind = PB_VALUE_BYTES
                value.bytes = pb_bytes_t(data: UnsafePointer(copy(bytes).assumingMemoryBound(to: UInt8.self)), size: bytes.count)
            case .pointer(let address): value.kind = PB_VALUE_POINTER; value.pointer = UnsafeMutableRawPointer(bitPattern: address)
            }
            items.append(value)
        }
    }

    /// A heap copy of `bytes` (at least one byte, so never NULL), kept until `deallocate`.
    private mutating func copy(_ bytes: [UInt8]) -> UnsafeMutableRawPointer {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        bytes.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(memory), byteCount: $0.count) }
        copies.append(memory)
        return memory
    }

    /// Frees the copies.
    func deallocate() {
        for memory in copies { memory.deallocate() }
    }
}
