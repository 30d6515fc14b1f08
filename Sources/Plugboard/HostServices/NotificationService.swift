import CPlugboard

/// `pb_host_t.notifications`: the bus's C entry points. One table serves every
/// library (the `host` argument says whose call it is), allocated once and never freed.
/// A refused call returns its status and is logged as a warning naming the plugin,
/// the call and the cause, and reported to the host as a ``BusRefusal`` (the first
/// ``RefusalLogBudget/limit`` of each library).
enum NotificationService {
    /// The table every `pb_host_t` of this process points to.
    nonisolated(unsafe) static let table: UnsafePointer<pb_notifications_t> = {
        let table = UnsafeMutablePointer<pb_notifications_t>.allocate(capacity: 1)
        table.initialize(to: pb_notifications_t(
            struct_size: UInt32(MemoryLayout<pb_notifications_t>.size), post: post, observe: observe,
            stop_observing: stopObserving))
        return UnsafePointer(table)
    }()

    /// `pb_notifications_t.post`.
    private static let post: @convention(c) (
        UnsafePointer<pb_host_t>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?
    ) -> pb_status_t = { host, pluginID, name, payload in
        serve(host, .post, plugin: pluginID, name: name, gated: .post) { context, bus, plugin throws(NotificationRefusal) in
            guard let name else { throw NotificationRefusal(PB_ERR_INVALID_ARGUMENT, "post: the name is NULL") }
            let text = String(cString: name)
            try NotificationRefusal.check(name: text, call: "post")
            var payloadText = "{}"
            if let payload {
                // Not repaired into U+FFFD and delivered: a payload is UTF-8 text, or refused.
                guard let valid = String(validatingCString: payload) else {
                    throw NotificationRefusal(PB_ERR_INVALID_ARGUMENT, "post \(text): the payload is not UTF-8")
                }
                payloadText = valid
            }
            try NotificationRefusal.check(payload: payloadText, name: text)
            guard bus.post(text, payload: payloadText, sender: plugin) else {
                throw NotificationRefusal(PB_ERR_UNAVAILABLE, "post \(text): \(NotificationBus.queueLimit) notifications wait for "
                                          + "delivery already (posted faster than they are delivered)")
            }
        }
    }

    /// `pb_notifications_t.observe`.
    private static let observe: @convention(c) (
        UnsafePointer<pb_host_t>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, pb_notification_fn?,
        UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt64>?
    ) -> pb_status_t = { host, pluginID, name, callback, ctx, token in
        serve(host, .observe, plugin: pluginID, name: name, gated: .observe) { context, bus, plugin throws(NotificationRefusal) in
            guard let name else { throw NotificationRefusal(PB_ERR_INVALID_ARGUMENT, "observe: the name is NULL") }
            let text = String(cString: name)
            try NotificationRefusal.check(name: text, call: "observe")
            guard let callback else { throw NotificationRefusal(PB_ERR_INVALID_ARGUMENT, "observe \(text): the callback is NULL") }
            guard let token else { throw NotificationRefusal(PB_ERR_INVALID_ARGUMENT, "observe \(text): the token pointer is NULL") }
            guard let made = bus.observe(text, receiver: plugin, owner: ObjectIdentifier(context), .native(callback, ctx: ctx)) else {
                throw NotificationRefusal(PB_ERR_UNAVAILABLE, "observe \(text): \(context.lifetime.libraryPath) holds "
                                          + "\(NotificationBus.observationLimit) observations already, the most one library may")
            }
            token.pointee = made
        }
    }

    /// `pb_notifications_t.stop_observing`.
    private static let stopObserving: @convention(c) (UnsafePointer<pb_host_t>?, UInt64) -> pb_status_t = { host, token in
        serve(host, .stopObserving) { context, bus, _ throws(NotificationRefusal) in
            guard bus.stopObserving(token, owner: ObjectIdentifier(context)) else {
                throw NotificationRefusal(PB_ERR_NOT_FOUND, "stop_observing: \(context.lifetime.libraryPath) has no observation "
                                          + "with token \(token) (never made, already ended, or another library's)")
            }
        }
    }

    /// Runs `body` for the library of `host` with the bus that serves it and, for a call on behalf
    /// of a plugin (`plugin` given, NULL or not), its id, checked to be one of the library's; a
    /// refusal is logged, reported with the notification `name` the call was given, and its status
    /// returned. A `gated` service the policy denies the library answers PB_ERR_DENIED (the gate
    /// logs the first denial, not every retry).
    private static func serve(
        _ host: UnsafePointer<pb_host_t>?, _ call: BusRefusal.Call, plugin pluginID: UnsafePointer<CChar>?? = .none,
        name: UnsafePointer<CChar>? = nil, gated service: HostService? = nil,
        _ body: (HostServicesTable.Context, NotificationBus, String) throws(NotificationRefusal) -> Void
    ) -> pb_status_t {
        guard let data = host?.pointee.host_data else { return PB_ERR_INVALID_ARGUMENT }
        let context = Unmanaged<HostServicesTable.Context>.fromOpaque(data).takeUnretainedValue()
        guard context.lifetime.admits(call.rawValue) else { return PB_ERR_WRONG_STATE }
        if let service, context.gate.refusal(service) != nil { return PB_ERR_DENIED }
        let library = context.lifetime.libraryPath
        let plugin = pluginID.flatMap { $0 }.map { String(cString: $0) }
        do throws(NotificationRefusal) {
            if case .some = pluginID {
                guard let plugin else { throw NotificationRefusal(PB_ERR_INVALID_ARGUMENT, "\(call.rawValue): the plugin id is NULL") }
                guard context.pluginIDs.withLock({ $0.contains(plugin) }) else {
                    throw NotificationRefusal(PB_ERR_INVALID_ARGUMENT, "\(call.rawValue): '\(plugin)' is not a plugin of \(library)")
                }
            }
            guard let bus = context.invocations.bus else {
                throw NotificationRefusal(PB_ERR_WRONG_STATE, "\(call.rawValue): no host serves \(library) now"
                                          + " (notifications work from the library's first event on, not in init or register_plugins)")
            }
            try body(context, bus, plugin ?? "")
            return PB_OK
        } catch {
            if let note = context.refusalLog.spend() {
                context.router.deliver(PluginLogRecord(source: library, plugin: plugin, level: .warning,
                                                       message: error.description + "; refused" + note))
                context.router.deliver(BusRefusal(library: library, plugin: plugin, call: call,
                                                  name: name.map { String(cString: $0) }, reason: error.description))
            }
            return error.status
        }
    }
}
