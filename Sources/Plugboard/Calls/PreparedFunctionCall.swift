/// A call of one plugin function prepared once and made many times, made by
/// ``PluginFunctionHandle/prepare(_:)``: its arguments are checked and converted to C
/// when they are set, into a frame the calls reuse, so a call in this process only runs
/// the function and converts its result. A call into a worker sends the arguments as set.
///
/// A call behaves as ``PluginFunctionHandle/call(_:)`` with the arguments as set: it is
/// recorded and traced alike, throws the same errors, and, when the host's plugins changed
/// since, resolves the function again and writes the arguments again (throwing if they no
/// longer fit its signature).
///
/// Use it on the host's thread, like the host itself.
public final class PreparedFunctionCall {
    /// The function called.
    public let handle: PluginFunctionHandle
    /// The arguments as set, in order.
    public var arguments: [PluginValue] { frame.values }

    // Read on every call and used from the host's one thread (like the host): not checked
    // for exclusive access at run time.
    @exclusivity(unchecked) private var frame: ArgumentFrame

    init(_ handle: PluginFunctionHandle, arguments: [PluginValue]) throws(PluginCallError) {
        self.handle = handle
        frame = try Self.frame(for: handle.current(), arguments: arguments)
    }

    /// Checks `value` against argument `index` (0-based, in signature order) and sets it for
    /// the next calls; on a throw the argument keeps its value. An `index` the signature has
    /// not is ``PluginCallError/invalidArgument(_:position:reason:)``.
    public func set(_ index: Int, to value: PluginValue) throws(PluginCallError) {
        try frame.set(index, to: value)
    }

    /// Calls the function with the arguments as set and returns its result.
    public func call() throws(PluginCallError) -> PluginValue {
        if !handle.isCurrent(frame.resolved) {
            frame = try Self.frame(for: handle.current(), arguments: frame.values)
        }
        // The frame stays this call's own until it returns (it is replaced only above, on this thread):
        // borrowed, so nothing reached through it is reference counted.
        return try Unmanaged.passUnretained(frame)._withUnsafeGuaranteedRef { handle.call($0) }.get()
    }

    /// A frame for `function` holding `arguments`, laid out by its libffi call interface (in a
    /// worker, one made for its signature here: the arguments are checked here all the same).
    private static func frame(for function: ResolvedFunction, arguments: [PluginValue]) throws(PluginCallError) -> ArgumentFrame {
        let interface: CallInterface
        switch function.place {
        case .here(let code, _):
            interface = code.interface
        case .worker:
            guard let made = CallInterface(function.signature) else {
                throw .refusedFunction(function.address, reason: "libffi cannot prepare a call of \(function.signature)")
            }
            interface = made
        }
        return try ArgumentFrame(for: function, interface: interface, arguments: arguments)
    }
}
