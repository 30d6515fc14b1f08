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
    /// Calls of this prepared call in progress: a function can reach back into the embedding
    /// application (a log line, an observer), which may call or change this prepared call again.
    @exclusivity(unchecked) private var active = 0
    /// Frames replaced while a call was in progress, which that call still reads: kept until the calls end.
    @exclusivity(unchecked) private var retired: [ArgumentFrame] = []

    init(_ handle: PluginFunctionHandle, arguments: [PluginValue]) throws(PluginCallError) {
        self.handle = handle
        frame = try ArgumentFrame(for: handle.current(), arguments: arguments)
    }

    /// Checks `value` against argument `index` (0-based, in signature order) and sets it for
    /// the next calls; on a throw the argument keeps its value. An `index` the signature has
    /// not is ``PluginCallError/invalidArgument(_:position:reason:)``, whose position counts
    /// from 1, as every call error's does (`index + 1`: "argument 8" for index 7).
    public func set(_ index: Int, to value: PluginValue) throws(PluginCallError) {
        guard active > 0 else { return try frame.set(index, to: value) }
        // A call in progress reads the frame (a string it was given may still be in use): set a copy.
        let copy = try ArgumentFrame(for: frame.resolved, interface: frame.interface, arguments: frame.values)
        try copy.set(index, to: value)
        replace(with: copy)
    }

    /// Calls the function with the arguments as set and returns its result.
    public func call() throws(PluginCallError) -> PluginValue {
        if !handle.isCurrent(frame.resolved) {
            replace(with: try ArgumentFrame(for: handle.current(), arguments: frame.values))
        }
        active += 1
        defer {
            active -= 1
            if active == 0, !retired.isEmpty { retired = [] }
        }
        // The frame outlives this call (a frame replaced meanwhile is retired, not freed), and this
        // prepared call keeps its handle: both borrowed, so nothing on the call's path is reference
        // counted. `_withUnsafeGuaranteedRef` is the standard library's way to say so; no public API
        // promises it.
        return try Unmanaged.passUnretained(frame)._withUnsafeGuaranteedRef { frame in
            Unmanaged.passUnretained(handle)._withUnsafeGuaranteedRef { $0.call(frame) }
        }.get()
    }

    /// Makes `new` the frame; the old one is kept while a call that reads it is in progress.
    private func replace(with new: ArgumentFrame) {
        if active > 0 { retired.append(frame) }
        frame = new
    }
}
