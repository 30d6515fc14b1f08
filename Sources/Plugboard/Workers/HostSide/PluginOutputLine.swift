/// One line a plugin printed in a worker, attributed to its library.
public struct PluginOutputLine: Sendable, Codable {
    /// Which of the worker's streams it came on.
    public enum Stream: String, Sendable, Codable {
        /// Standard output.
        case stdout
        /// Standard error.
        case stderr
    }

    /// The library whose worker printed it.
    public let source: String
    /// The stream.
    public let stream: Stream
    /// The line, without its line break (bytes that are not UTF-8 replaced).
    public let text: String
}
