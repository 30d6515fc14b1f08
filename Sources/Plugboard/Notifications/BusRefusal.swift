/// A notification-bus call of a plugin library that the host refused, as a value: what the
/// host logs as the warning `CALL …: CAUSE; refused`, for a tool that must tell refusals
/// apart without reading log text (``LibraryLoader/busRefusalHandler``).
package struct BusRefusal: Sendable, Equatable {
    /// The bus calls of `pb_notifications_t`.
    package enum Call: String, Sendable {
        /// `post`.
        case post
        /// `observe`.
        case observe
        /// `stop_observing`.
        case stopObserving = "stop_observing"
    }

    /// The path of the library that made the call.
    package let library: String
    /// The plugin id the call was made for, as given; nil when it was NULL or the call takes none.
    package let plugin: String?
    /// The refused call.
    package let call: Call
    /// The notification name given, if the call takes one and it was not NULL.
    package let name: String?
    /// The host's sentence naming the call and the cause: "post com.example.x: the payload is not a JSON object: …".
    package let reason: String
}
