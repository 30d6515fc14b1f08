import CPlugboard
import Glibc

/// `pb_host_t.invoke`, `release_value` and the prepared invocations (`prepare_invoke`,
/// `set_prepared_argument`, `call_prepared`, `release_prepared`): a plugin calls any plugin's
/// declared function by address through the host that serves its library
/// (``InvocationRouter``), with arguments and a result in their C form (`pb_value_t`).
enum InvokeService {
    /// `pb_host_t.invoke`: thread-safe; refused (and reported once) after the library's end.
    static let invoke: @convention(c) (
        UnsafePointer<pb_host_t>?, UnsafePointer<CChar>?, UnsafePointer<pb_value_t>?, Int,
        UnsafeMutablePointer<pb_value_t>?, UnsafeMutablePointer<CChar>?, Int
    ) -> pb_status_t = { host, function, arguments, count, result, error, errorSize in
        result?.pointee = pb_value_t()
        return answer(to: error, size: errorSize) { () throws(InvokeFailure) in
            let (context, text) = try admitted(host, function, service: "invoke")
            guard let result else { throw InvokeFailure(status: PB_ERR_INVALID_ARGUMENT, message: "invoke \(text): the result pointer is NULL") }
            let values = try read(arguments, count, service: "invoke", text)
            let invoker = try invoker(context, service: "invoke", text)
            try write(invoker.invoke(text, values, depth: InvocationDepth.current + 1, caller: .here), to: result, service: "invoke", text)
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

    /// `pb_host_t.prepare_invoke`: what `invoke` checks, once; the handle kept in the library's table.
    static let prepareInvoke: @convention(c) (
        UnsafePointer<pb_host_t>?, UnsafePointer<CChar>?, UnsafePointer<pb_value_t>?, Int,
        UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutablePointer<CChar>?, Int
    ) -> pb_status_t = { host, function, arguments, count, prepared, error, errorSize in
        prepared?.pointee = nil
        return answer(to: error, size: errorSize) { () throws(InvokeFailure) in
            let (context, text) = try admitted(host, function, service: "prepare_invoke")
            guard let prepared else {
                throw InvokeFailure(status: PB_ERR_INVALID_ARGUMENT, message: "prepare_invoke \(text): the prepared pointer is NULL")
            }
            let values = try read(arguments, count, service: "prepare_invoke", text)
            let invoker = try invoker(context, service: "prepare_invoke", text)
            prepared.pointee = context.prepared.add(try PreparedInvocation(text, arguments: values, invoker: invoker))
        }
    }

    /// `pb_host_t.set_prepared_argument`: checks and sets one argument of a prepared invocation.
    static let setPreparedArgument: @convention(c) (
        UnsafePointer<pb_host_t>?, OpaquePointer?, Int, UnsafePointer<pb_value_t>?, UnsafeMutablePointer<CChar>?, Int
    ) -> pb_status_t = { host, prepared, index, value, error, errorSize in
        answer(to: error, size: errorSize) { () throws(InvokeFailure) in
            let (_, invocation) = try found(host, prepared, service: "set_prepared_argument")
            let service = "set_prepared_argument \(invocation.function)"
            guard let value else {
                throw InvokeFailure(status: PB_ERR_INVALID_ARGUMENT, message: "\(service): the value is NULL")
            }
            let converted: PluginValue
            do throws(InvokeFailure) {
                converted = try PluginValue(value.pointee, position: index + 1)
            } catch {
                throw InvokeFailure(status: error.status, message: "\(service): \(error.message)")
            }
            try invocation.set(index, to: converted)
        }
    }

    /// `pb_host_t.call_prepared`: a prepared invocation's call, answered as `invoke` answers.
    static let callPrepared: @convention(c) (
        UnsafePointer<pb_host_t>?, OpaquePointer?, UnsafeMutablePointer<pb_value_t>?, UnsafeMutablePointer<CChar>?, Int
    ) -> pb_status_t = { host, prepared, result, error, errorSize in
        result?.pointee = pb_value_t()
        return answer(to: error, size: errorSize) { () throws(InvokeFailure) in
            let (context, invocation) = try found(host, prepared, service: "call_prepared")
            let text = invocation.function
            guard let result else {
                throw InvokeFailure(status: PB_ERR_INVALID_ARGUMENT, message: "call_prepared \(text): the result pointer is NULL")
            }
            let invoker = try invoker(context, service: "call_prepared", text)
            try write(invocation.call(through: invoker, depth: InvocationDepth.current + 1), to: result,
                      service: "call_prepared", text)
        }
    }

    /// `pb_host_t.release_prepared`: lets go of a prepared invocation; any thread, any time.
    static let releasePrepared: @convention(c) (UnsafePointer<pb_host_t>?, OpaquePointer?) -> Void = { host, prepared in
        guard let data = host?.pointee.host_data else { return }
        Unmanaged<HostServicesTable.Context>.fromOpaque(data).takeUnretainedValue().prepared.release(prepared)
    }

    // MARK: - The checks they share

    /// Runs `body`; writes its failure's sentence (or "" on success) to `error` and returns the status.
    private static func answer(to buffer: UnsafeMutablePointer<CChar>?, size: Int,
                               _ body: () throws(InvokeFailure) -> Void) -> pb_status_t {
        do throws(InvokeFailure) {
            try body()
            write("", to: buffer, size: size)
            return PB_OK
        } catch {
            write(error.message, to: buffer, size: size)
            return error.status
        }
    }

    /// The library's context behind `host`, when its lifetime admits `service`.
    private static func context(_ host: UnsafePointer<pb_host_t>?, service: String) throws(InvokeFailure) -> HostServicesTable.Context {
        guard let data = host?.pointee.host_data else {
            throw InvokeFailure(status: PB_ERR_INVALID_ARGUMENT, message: "\(service): the host table is NULL")
        }
        let context = Unmanaged<HostServicesTable.Context>.fromOpaque(data).takeUnretainedValue()
        guard context.lifetime.admits(service) else {
            throw InvokeFailure(status: PB_ERR_WRONG_STATE, message: "\(service): \(context.lifetime.libraryPath) has ended"
                                + " (its deinit ran, or its init returned false); ignored")
        }
        return context
    }

    /// The context and the function's text, when the library may invoke `function`: a function of
    /// its own plugins always (in a worker such a call never leaves it), another's as the policy says.
    private static func admitted(_ host: UnsafePointer<pb_host_t>?, _ function: UnsafePointer<CChar>?,
                                 service: String) throws(InvokeFailure) -> (HostServicesTable.Context, String) {
        let context = try context(host, service: service)
        guard let function else { throw InvokeFailure(status: PB_ERR_INVALID_ARGUMENT, message: "\(service): the function is NULL") }
        let text = String(cString: function)
        let own = (try? FunctionAddress(parsing: text)).map { address in
            context.pluginIDs.withLock { $0.contains(address.plugin.rawValue) }
        } ?? false
        if !own, let refusal = context.gate.refusal(.invoke) {
            throw InvokeFailure(status: PB_ERR_DENIED, message: "\(service) \(text): \(refusal)")
        }
        return (context, text)
    }

    /// The context and the prepared invocation `handle` stands for.
    private static func found(_ host: UnsafePointer<pb_host_t>?, _ handle: OpaquePointer?,
                              service: String) throws(InvokeFailure) -> (HostServicesTable.Context, PreparedInvocation) {
        let context = try context(host, service: service)
        guard let invocation = context.prepared.find(handle) else {
            let name = handle.map { "0x" + String(UInt(bitPattern: Int(bitPattern: $0)), radix: 16) } ?? "NULL"
            throw InvokeFailure(status: PB_ERR_INVALID_ARGUMENT, message: "\(service): \(name) is no prepared invocation of "
                                + "\(context.lifetime.libraryPath): released, or never made by prepare_invoke")
        }
        return (context, invocation)
    }

    /// The `count` arguments at `arguments` as values.
    private static func read(_ arguments: UnsafePointer<pb_value_t>?, _ count: Int, service: String,
                             _ text: String) throws(InvokeFailure) -> [PluginValue] {
        guard (0...FunctionSignature.maximumArguments).contains(count) else {
            throw InvokeFailure(status: PB_ERR_INVALID_ARGUMENT, message: "\(service) \(text): argument_count is \(UInt(bitPattern: count));"
                                + " no function takes more than \(FunctionSignature.maximumArguments)")
        }
        let given = arguments.map { UnsafeBufferPointer(start: $0, count: count) } ?? UnsafeBufferPointer(start: nil, count: 0)
        guard given.count == count else {
            throw InvokeFailure(status: PB_ERR_INVALID_ARGUMENT, message: "\(service) \(text): arguments is NULL but argument_count is \(count)")
        }
        var values: [PluginValue] = []
        values.reserveCapacity(count)
        for (position, argument) in given.enumerated() {
            do throws(InvokeFailure) {
                values.append(try PluginValue(argument, position: position + 1))
            } catch {
                throw InvokeFailure(status: error.status, message: "\(service) \(text): \(error.message)")
            }
        }
        return values
    }

    /// The invoker of the host that serves the library now.
    private static func invoker(_ context: HostServicesTable.Context, service: String, _ text: String) throws(InvokeFailure) -> FunctionInvoker {
        guard let invoker = context.invocations.invoker else {
            throw InvokeFailure(status: PB_ERR_WRONG_STATE, message: "\(service) \(text): no host serves \(context.lifetime.libraryPath) now"
                                + " (invoke works from the library's first event on, not in init or register_plugins)")
        }
        return invoker
    }

    /// Writes the outcome's value to `result` as the caller frees it, or throws its failure.
    private static func write(_ outcome: Result<PluginValue, InvokeFailure>, to result: UnsafeMutablePointer<pb_value_t>,
                              service: String, _ text: String) throws(InvokeFailure) {
        guard let written = try outcome.get().cValue else {
            throw InvokeFailure(status: PB_ERR_IO, message: "\(service) \(text): no memory for the result")
        }
        result.pointee = written
    }

    /// Copies `message`, cut to at most `size - 1` bytes, never inside a UTF-8 sequence, and a NUL into `buffer`.
    /// Every successful call writes the empty sentence: one byte, nothing counted or copied.
    private static func write(_ message: String, to buffer: UnsafeMutablePointer<CChar>?, size: Int) {
        guard let buffer, size > 0 else { return }
        var message = message
        let end = message.withUTF8 { bytes -> Int in
            var end = min(bytes.count, size - 1)
            // Back from a continuation byte (10xxxxxx) to the start of its sequence.
            while end > 0, end < bytes.count, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            if let start = bytes.baseAddress, end > 0 { UnsafeMutableRawPointer(buffer).copyMemory(from: start, byteCount: end) }
            return end
        }
        buffer[end] = 0
    }
}
