import CPlugboard
import PlugboardPluginAPI

extension PlugboardHost {
    /// Calls `function`, `"plugin-id.function"` (`"com.example.units.convert"`), that any plugin
    /// declared, with `arguments`, wherever it runs (this process or a worker), and returns a copy
    /// of its result (the host's is released). Thread-safe; the call runs on this thread when the
    /// function is in this process. Throws ``InvokeError`` with the host's status and sentence.
    public func invoke(_ function: String, _ arguments: [PluginValue]) throws(InvokeError) -> PluginValue {
        let table = pointer.table
        guard covers(\.release_value), let invoke = table.pointee.invoke, let releaseValue = table.pointee.release_value else {
            throw InvokeError(status: PB_ERR_UNAVAILABLE, message: "this host has no invoke (ABI 1.2 is needed)")
        }
        let values = try CValues(arguments, function: function)
        defer { values.deallocate() }
        var result = pb_value_t()
        var message = [CChar](repeating: 0, count: 1024)
        let status = values.items.withUnsafeBufferPointer { items in
            invoke(table, function, items.baseAddress, items.count, &result, &message, message.count)
        }
        return try answer(status, &result, message, function: function, table: table, release: releaseValue)
    }

    /// Prepares calls of `function` with `arguments` (as ``invoke(_:_:)`` takes them), checked by
    /// the host once, here (ABI 1.4): ``PreparedInvocation/set(_:to:)`` changes an argument,
    /// ``PreparedInvocation/call()`` calls. Throws what an invocation with them would, short of
    /// running the function.
    public func prepare(_ function: String, _ arguments: [PluginValue]) throws(InvokeError) -> PreparedInvocation {
        let table = pointer.table
        guard covers(\.release_prepared), let prepare = table.pointee.prepare_invoke else {
            throw InvokeError.noPreparedInvocations
        }
        let values = try CValues(arguments, function: function)
        defer { values.deallocate() }
        var handle: OpaquePointer?
        var message = [CChar](repeating: 0, count: 1024)
        let status = values.items.withUnsafeBufferPointer { items in
            prepare(table, function, items.baseAddress, items.count, &handle, &message, message.count)
        }
        guard status == PB_OK, let handle else { throw InvokeError(status: status, message: sentence(message)) }
        return PreparedInvocation(host: self, handle: handle, function: function)
    }

    /// Whether the host's table reaches the end of `field` (an older host's is shorter).
    func covers<Field>(_ field: KeyPath<pb_host_t, Field>) -> Bool {
        let end = (MemoryLayout<pb_host_t>.offset(of: field) ?? .max) + MemoryLayout<Field>.size
        return Int(pointer.table.pointee.struct_size) >= end
    }
}

/// An invocation prepared once by ``PlugboardHost/prepare(_:_:)`` and made many times: the host
/// looked the function up and checked the arguments, so a call only runs it and copies its result.
/// Calls may run on several threads at once; ``set(_:to:)`` while one runs is refused
/// (`PB_ERR_WRONG_STATE`). The host's handle is released with the object.
public final class PreparedInvocation: Sendable {
    /// The function, `"plugin-id.function"`.
    public let function: String
    private let host: PlugboardHost
    /// The host's handle: a number it checks, never dereferenced here.
    private nonisolated(unsafe) let handle: OpaquePointer

    init(host: PlugboardHost, handle: OpaquePointer, function: String) {
        self.host = host
        self.handle = handle
        self.function = function
    }

    deinit {
        host.pointer.table.pointee.release_prepared?(host.pointer.table, handle)
    }

    /// Sets argument `index` (0-based) to `value`, checked by the host; on a throw the argument
    /// keeps its value.
    public func set(_ index: Int, to value: PluginValue) throws(InvokeError) {
        let table = host.pointer.table
        guard let set = table.pointee.set_prepared_argument else {
            throw InvokeError.noPreparedInvocations
        }
        let values = try CValues([value], function: function, firstPosition: index + 1)
        defer { values.deallocate() }
        var message = [CChar](repeating: 0, count: 1024)
        let status = values.items.withUnsafeBufferPointer { set(table, handle, index, $0.baseAddress, &message, message.count) }
        guard status == PB_OK else { throw InvokeError(status: status, message: sentence(message)) }
    }

    /// Calls the function with the arguments as set and returns a copy of its result, as
    /// ``PlugboardHost/invoke(_:_:)`` does.
    public func call() throws(InvokeError) -> PluginValue {
        let table = host.pointer.table
        guard let call = table.pointee.call_prepared, let releaseValue = table.pointee.release_value else {
            throw InvokeError.noPreparedInvocations
        }
        var result = pb_value_t()
        var message = [CChar](repeating: 0, count: 1024)
        let status = call(table, handle, &result, &message, message.count)
        return try answer(status, &result, message, function: function, table: table, release: releaseValue)
    }
}

extension InvokeError {
    /// A host older than ABI 1.4, whose table has no prepared invocations.
    static let noPreparedInvocations = InvokeError(status: PB_ERR_UNAVAILABLE,
                                                   message: "this host has no prepared invocations (ABI 1.4 is needed)")
}

/// The host's sentence in `message`.
private func sentence(_ message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// What an invocation of `function` that returned `status`, `result` and `message` answers: a copy
/// of the result (the host's is released with `table`'s `release`), or the host's error.
private func answer(_ status: pb_status_t, _ result: inout pb_value_t, _ message: [CChar], function: String,
                    table: UnsafePointer<pb_host_t>,
                    release: (UnsafePointer<pb_host_t>?, UnsafeMutablePointer<pb_value_t>?) -> Void) throws(InvokeError) -> PluginValue {
    guard status == PB_OK else { throw InvokeError(status: status, message: sentence(message)) }
    defer { release(table, &result) }
    guard let value = PluginValue(copying: result) else {
        throw InvokeError(status: PB_ERR_IO, message: "\(function): the host answered an unknown kind \(result.kind)")
    }
    return value
}

/// Arguments as `pb_value_t`s, with C copies of their strings and bytes, freed by `deallocate`.
private struct CValues {
    var items: [pb_value_t] = []
    private var copies: [UnsafeMutableRawPointer] = []

    /// `firstPosition` is the 1-based position of the first argument, for the error messages.
    init(_ arguments: [PluginValue], function: String, firstPosition: Int = 1) throws(InvokeError) {
        for (offset, argument) in arguments.enumerated() {
            let index = offset + firstPosition - 1
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
