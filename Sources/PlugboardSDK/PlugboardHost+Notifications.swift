import CPlugboard
import PlugboardPluginAPI

/// An observation ``PlugboardHost/observe(_:as:_:)`` made; end it with ``PlugboardHost/stopObserving(_:)``.
public struct BusObservation: Sendable, Hashable {
    /// The host's token.
    let token: UInt64
}

/// A bus call the host refused: the `PB_ERR_*` status and what was asked (the host logs the cause as a warning).
public struct BusError: Error, Sendable, CustomStringConvertible {
    /// The negative `PB_ERR_*` code (`PB_ERR_INVALID_ARGUMENT` for a bad name or payload, …).
    public let status: Int32
    /// "post com.example.x: refused with status -1 (the host's log says why)".
    public let message: String

    /// The sentence.
    public var description: String { message }
}

/// The notification bus (services/notifications.h), the Swift way: callbacks, called by the host on its
/// dispatch thread in its documented order, like every plugin callback.
extension PlugboardHost {
    /// Posts `name` with `payload` (JSON object text) on behalf of `plugin`, one of this library's
    /// plugins. Thread-safe; the host delivers it after the current callback returned.
    public func post(_ name: String, payload: String = "{}", as plugin: PluginID) throws(BusError) {
        let bus = try notifications("post \(name)")
        try check(bus.post?(pointer.table, plugin.rawValue, name, payload), "post \(name)")
    }

    /// Calls `handler` for every notification named `name`, on behalf of `plugin` (whose priority orders
    /// it among the observers), until ``stopObserving(_:)``. Thread-safe.
    public func observe(_ name: String, as plugin: PluginID,
                        _ handler: @escaping @Sendable (PluginNotification) -> Void) throws(BusError) -> BusObservation {
        let bus = try notifications("observe \(name)")
        // Kept for the life of the process once observing: the host may be delivering to it as it is stopped.
        let box = Unmanaged.passRetained(ObserverBox(handler))
        var token: UInt64 = 0
        do {
            try check(bus.observe?(pointer.table, plugin.rawValue, name, ObserverBox.trampoline, box.toOpaque(), &token),
                      "observe \(name)")
        } catch {
            box.release() // refused: the host never kept it
            throw error
        }
        return BusObservation(token: token)
    }

    /// Ends `observation`: called on the host's dispatch thread (from a callback or the handler itself), its
    /// handler is not called again; from another thread, a call already under way may still run. Thread-safe.
    public func stopObserving(_ observation: BusObservation) throws(BusError) {
        let bus = try notifications("stop observing")
        try check(bus.stop_observing?(pointer.table, observation.token), "stop observing \(observation.token)")
    }

    /// The bus table, when the host's table covers it (ABI 1.3).
    private func notifications(_ call: String) throws(BusError) -> pb_notifications_t {
        let table = pointer.table
        let end = (MemoryLayout<pb_host_t>.offset(of: \pb_host_t.notifications) ?? .max)
            + MemoryLayout<UnsafePointer<pb_notifications_t>?>.size
        guard Int(table.pointee.struct_size) >= end, let bus = table.pointee.notifications else {
            throw BusError(status: PB_ERR_UNAVAILABLE, message: "\(call): this host has no notification bus (ABI 1.3 is needed)")
        }
        return bus.pointee
    }

    private func check(_ status: pb_status_t?, _ call: String) throws(BusError) {
        let status = status ?? PB_ERR_UNAVAILABLE
        guard status == PB_OK else {
            throw BusError(status: status, message: "\(call): refused with status \(status) (the host's log says why)")
        }
    }
}

/// A handler as the C observer's `ctx`.
private final class ObserverBox: Sendable {
    let handler: @Sendable (PluginNotification) -> Void

    init(_ handler: @escaping @Sendable (PluginNotification) -> Void) {
        self.handler = handler
    }

    /// The C observer: copies the host's strings and calls the handler.
    static let trampoline: pb_notification_fn = { ctx, name, payload, sender in
        guard let ctx else { return }
        let box = Unmanaged<ObserverBox>.fromOpaque(ctx).takeUnretainedValue()
        box.handler(PluginNotification(name: name.map { String(cString: $0) } ?? "", payload: payload.map { String(cString: $0) } ?? "{}",
                                    sender: sender.map { String(cString: $0) } ?? ""))
    }
}
