/// A call's arguments written as C once, for many calls of one resolved function: the
/// frame a ``CallInterface`` lays out, on the heap, and one payload buffer per string or
/// buffer argument (grown when a longer value is set, never shrunk). Setting an argument
/// checks and converts it then; a call through the frame only reads it.
final class ArgumentFrame {
    /// The function the frame was written for; a frame is used for no other.
    let resolved: ResolvedFunction
    /// The frame: the interface's slots, result and parameter pointer array.
    let base: UnsafeMutableRawPointer
    /// The arguments as set, in order. Read on every call, from the host's one thread: not
    /// checked for exclusive access at run time.
    @exclusivity(unchecked) private(set) var values: [PluginValue] = []
    /// The layout of the frame and the libffi call interface.
    let interface: CallInterface
    /// Each argument's payload buffer and its capacity (0 with no buffer).
    private var payloads: [(buffer: UnsafeMutableRawPointer?, capacity: Int)]

    /// A frame for `resolved`, laid out by `interface` (made for its signature), holding `arguments`;
    /// throws as a call with them would: a wrong count, a wrong type, a value out of range.
    init(for resolved: ResolvedFunction, interface: CallInterface, arguments: [PluginValue]) throws(PluginCallError) {
        self.resolved = resolved
        self.interface = interface
        base = .allocate(byteCount: interface.frameSize, alignment: 16)
        payloads = Array(repeating: (nil, 0), count: resolved.signature.arguments.count)
        guard arguments.count == payloads.count else {
            throw .wrongArgumentCount(resolved.address, expected: payloads.count, given: arguments.count)
        }
        if let refusal = ByteCount.togetherRefusal(of: arguments) {
            throw .invalidArgument(resolved.address, position: refusal.position, reason: refusal.reason)
        }
        for (index, value) in arguments.enumerated() {
            try write(value, at: index)
            values.append(value)
        }
    }

    /// A frame for `resolved` holding `arguments`, laid out by its libffi call interface (in a
    /// worker, one made for its signature here: the arguments are checked here all the same).
    convenience init(for resolved: ResolvedFunction, arguments: [PluginValue]) throws(PluginCallError) {
        let interface: CallInterface
        switch resolved.place {
        case .here(let code, _):
            interface = code.interface
        case .worker:
            guard let made = CallInterface(resolved.signature) else {
                throw .refusedFunction(resolved.address, reason: "libffi cannot prepare a call of \(resolved.signature)")
            }
            interface = made
        }
        try self.init(for: resolved, interface: interface, arguments: arguments)
    }

    deinit {
        for payload in payloads { payload.buffer?.deallocate() }
        base.deallocate()
    }

    /// Checks `value` against argument `index` (0-based) and writes it; on a throw the frame
    /// keeps the argument it had.
    func set(_ index: Int, to value: PluginValue) throws(PluginCallError) {
        guard values.indices.contains(index) else {
            throw .invalidArgument(resolved.address, position: index + 1,
                                   reason: "there is no such argument: the signature is \(resolved.signature)")
        }
        // Only a string or buffer can take the call's values past the limit together.
        if ByteCount.carried(by: value) > 0 {
            let total = values.indices.reduce(0) { $0 + ByteCount.carried(by: $1 == index ? value : values[$1]) }
            if total > ByteCount.valueLimit {
                throw .invalidArgument(resolved.address, position: index + 1, reason: "with it, the string and bytes arguments would carry "
                                       + "\(total) bytes together, over the limit of \(ByteCount.valueLimit)")
            }
        }
        do throws(PluginCallError) {
            try write(value, at: index)
        } catch {
            // The old value was written before into a buffer at least as large: it cannot fail.
            try? write(values[index], at: index)
            throw error
        }
        values[index] = value
    }

    /// Writes `value` as argument `index`, its payload buffer grown first when too small.
    private func write(_ value: PluginValue, at index: Int) throws(PluginCallError) {
        let size = ArgumentWriter.payloadSize(of: value)
        if size > payloads[index].capacity {
            payloads[index].buffer?.deallocate()
            payloads[index] = (.allocate(byteCount: size, alignment: 16), size)
        }
        try ArgumentWriter(frame: base, interface: interface)
            .write(value, as: resolved.signature.arguments[index], parameter: interface.firstParameter[index],
                   payload: payloads[index].buffer ?? base, position: index + 1, of: resolved)
    }
}
