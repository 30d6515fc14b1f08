import CPlugboard
import Glibc

/// `pb_host_t.invoke` and `pb_host_t.release_value`: a plugin calls any plugin's
/// declared function by address through the host that serves its library
/// (``InvocationRouter``), with arguments and a result in their C form (`pb_value_t`).
enum InvokeService {
    /// `pb_host_t.invoke`: thread-safe; refused (and reported once) after the library's end.
    static let invoke: @convention(c) (
        UnsafePointer<pb_host_t>?, UnsafePointer<CChar>?, UnsafePointer<pb_value_t>?, Int,
        UnsafeMutablePointer<pb_value_t>?, UnsafeMutablePointer<CChar>?, Int
    ) -> pb_status_t = { host, function, arguments, count, result, error, errorSize in
        result?.pointee = pb_value_t()
        switch run(host, function, arguments, count, result) {
        case .success:
            write("", to: error, size: errorSize)
            return PB_OK
        case .failure(let failure):
            write(failure.message, to: error, size: errorSize)
            return failure.status
        }
    }

    /// `pb_host_t.release_value`: frees a string or bytes result; any thread, any time.
    static let releaseValue: @convention(c) (UnsafePointer<pb_host_t>?, UnsafeMutablePointer<pb_value_t>?) -> Void = {
        _, value in
        guard let value else { return }
        switch value.pointee.kind {
        case PB_VALUE_STRING: free(UnsafeMutableRawPointer(mutating: value.pointee.string))
        case PB_VALUE_BYTES: free(UnsafeMutableRawPointer(mutating: value.pointee.bytes.data))
        default: break
        }
        value.pointee = pb_value_t()
    }

    /// The invocation: the result written, or why not.
    private static func run(_ host: UnsafePointer<pb_host_t>?, _ function: UnsafePointer<CChar>?,
                            _ arguments: UnsafePointer<pb_value_t>?, _ count: Int,
                            _ result: UnsafeMutablePointer<pb_value_t>?) -> Result<Void, InvokeFailure> {
        func failure(_ status: pb_status_t, _ message: String) -> Result<Void, InvokeFailure> {
            .failure(InvokeFailure(status: status, message: message))
        }
        guard let data = host?.pointee.host_data else {
            return failure(PB_ERR_INVALID_ARGUMENT, "invoke: the host table is NULL")
        }
        let context = Unmanaged<HostServicesTable.Context>.fromOpaque(data).takeUnretainedValue()
        let library = context.lifetime.libraryPath
        guard context.lifetime.admits("invoke") else {
            return failure(PB_ERR_WRONG_STATE, "invoke: \(library) has ended (its deinit ran, or its init returned false); ignored")
        }
        guard let function else { return failure(PB_ERR_INVALID_ARGUMENT, "invoke: the function is NULL") }
        let text = String(cString: function)
        // A library calling its own plugins' functions calls its own code (in a worker such a call never
        // leaves the worker): the policy governs calls to other libraries.
        let own = (try? FunctionAddress(parsing: text)).map { address in
            context.pluginIDs.withLock { $0.contains(address.plugin.rawValue) }
        } ?? false
        if !own, let refusal = context.gate.refusal(.invoke) { return failure(PB_ERR_DENIED, "invoke \(text): \(refusal)") }
        guard let result else {
            return failure(PB_ERR_INVALID_ARGUMENT, "invoke \(text): the result pointer is NULL")
        }
        guard count <= FunctionSignature.maximumArguments else {
            return failure(PB_ERR_INVALID_ARGUMENT, "invoke \(text): argument_count is \(count); no function takes more than \(FunctionSignature.maximumArguments)")
        }
        let given = arguments.map { UnsafeBufferPointer(start: $0, count: count) } ?? UnsafeBufferPointer(start: nil, count: 0)
        guard given.count == count else {
            return failure(PB_ERR_INVALID_ARGUMENT, "invoke \(text): arguments is NULL but argument_count is \(count)")
        }
        var values: [PluginValue] = []
        for (position, argument) in given.enumerated() {
            do {
                values.append(try PluginValue(argument, position: position + 1))
            } catch {
                return failure(error.status, "invoke \(text): \(error.message)")
            }
        }
        guard let invoker = context.invocations.invoker else {
            return failure(PB_ERR_WRONG_STATE, "invoke \(text): no host serves \(library) now"
                           + " (invoke works from the library's first event on, not in init or register_plugins)")
        }
        switch invoker.invoke(text, values, depth: InvocationDepth.current + 1, caller: .here) {
        case .success(let value):
            guard let written = value.cValue else {
                return failure(PB_ERR_IO, "invoke \(text): no memory for the result")
            }
            result.pointee = written
            return .success(())
        case .failure(let failure):
            return .failure(failure)
        }
    }

    /// Copies `message`, cut to at most `size - 1` bytes, never inside a UTF-8 sequence, and a NUL into `buffer`.
    private static func write(_ message: String, to buffer: UnsafeMutablePointer<CChar>?, size: Int) {
        guard let buffer, size > 0 else { return }
        var fitting = 0
        for scalar in message.unicodeScalars {
            guard fitting + scalar.utf8.count < size else { break }
            fitting += scalar.utf8.count
        }
        let bytes = Array(message.utf8.prefix(fitting))
        for (index, byte) in bytes.enumerated() { buffer[index] = CChar(bitPattern: byte) }
        buffer[bytes.count] = 0
    }
}
