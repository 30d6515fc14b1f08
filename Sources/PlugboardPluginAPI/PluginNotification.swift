/// One notification of the host's bus as an observer receives it: in the embedding API
/// (`PluginHost.observe`) and in the Swift SDK (`PlugboardHost.observe`) alike.
public struct PluginNotification: Sendable, Equatable {
    /// The reverse-DNS name, e.g. `com.example.network.status`.
    public let name: String
    /// The payload: the text of one JSON object.
    public let payload: String
    /// Who posted it: a plugin id, or "plugboard" for the host or an events script.
    public let sender: String

    /// A notification as the bus delivers it.
    package init(name: String, payload: String, sender: String) {
        self.name = name
        self.payload = payload
        self.sender = sender
    }
}
