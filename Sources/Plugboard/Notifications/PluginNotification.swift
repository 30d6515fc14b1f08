import CPlugboard

/// An observation made with ``PluginHost/observe(_:_:)``, to end with ``PluginHost/stopObserving(_:)``.
public struct NotificationToken: Sendable, Hashable {
    /// The bus's number for the observation; never 0.
    let value: UInt64
}

/// Why the bus refused a call: the C status it stands for and a sentence naming the call and the cause.
public struct NotificationRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// A negative `PB_ERR_*` code (services/notifications.h lists them), the one a C plugin's call gets.
    public let status: Int32
    /// "post com.example.x: the payload is not a JSON object".
    public let description: String

    init(_ status: pb_status_t, _ description: String) {
        self.status = status
        self.description = description
    }

    /// Checks `name` as the header says (a reverse-DNS name, at most `PB_NOTIFICATION_NAME_MAX` bytes); `call` names the call.
    static func check(name: String, call: String) throws(NotificationRefusal) {
        do {
            _ = try PluginID(validating: name)
        } catch {
            let cause = error.description.replacing("the id", with: "the name")
            throw NotificationRefusal(PB_ERR_INVALID_ARGUMENT, "\(call): the notification name '\(name)' is not valid: \(cause)")
        }
    }

    /// Checks `payload` (one JSON object of at most `PB_NOTIFICATION_PAYLOAD_MAX` bytes) for posting `name`.
    static func check(payload: String, name: String) throws(NotificationRefusal) {
        let size = payload.utf8.count
        guard size <= Int(PB_NOTIFICATION_PAYLOAD_MAX) else {
            throw NotificationRefusal(PB_ERR_INVALID_ARGUMENT,
                                      "post \(name): the payload is \(size) bytes; at most \(PB_NOTIFICATION_PAYLOAD_MAX) are allowed")
        }
        do {
            try JSONSyntax.check(payload, top: .object)
        } catch {
            throw NotificationRefusal(PB_ERR_INVALID_ARGUMENT, "post \(name): the payload is not a JSON object: \(payload.prefix(80)) (\(error))")
        }
    }
}
