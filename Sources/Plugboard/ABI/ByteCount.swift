import PlugboardWorkerProtocol

/// A size a plugin hands the host as `size_t`, which Swift reads as an `Int`: negative from 2^63 on.
/// The host checks one against its limit before it makes a buffer of that size (a negative count
/// or an allocation of exabytes stops the process).
enum ByteCount {
    /// The most bytes a string or bytes value may carry (an argument, a result): what a worker's
    /// frame holds, with room for the rest of its message, so that a value means the same in
    /// process and in a worker.
    static let valueLimit = WireFormat.maximumPayloadLength - 64 * 1024

    /// `size` as a count of at most `limit` bytes, or nil.
    static func checked(_ size: Int, limit: Int) -> Int? {
        (0...limit).contains(size) ? size : nil
    }

    /// "N bytes, over the limit of M": `size` as the plugin wrote it.
    static func overLimit(_ size: Int, limit: Int) -> String {
        "\(UInt(bitPattern: size)) bytes, over the limit of \(limit)"
    }
}
