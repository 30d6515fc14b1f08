import PlugboardPluginAPI
import PlugboardWorkerProtocol

extension PluginValue {
    /// The most bytes the string and bytes values of one function call may carry, each and all
    /// together (what a worker's frame holds): 64 MiB less 64 KiB. A larger call is refused.
    public static let maximumBytes = ByteCount.valueLimit
}

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

    /// The first position (1-based) at which the string and bytes `values` of one call carry more
    /// than ``valueLimit`` bytes together, with that total; nil when they fit. One call's values go
    /// in one worker frame, so the limit is the same for all of them as for one.
    static func overflow(of values: [PluginValue]) -> (position: Int, total: Int)? {
        var total = 0
        for (index, value) in values.enumerated() {
            switch value {
            case .string(let text): total += text.utf8.count
            case .bytes(let bytes): total += bytes.count
            default: continue
            }
            if total > valueLimit { return (index + 1, total) }
        }
        return nil
    }

    /// Why `values` cannot go in one call, or nil: "the string and bytes arguments carry N bytes together …".
    static func togetherRefusal(of values: [PluginValue]) -> (position: Int, reason: String)? {
        overflow(of: values).map {
            ($0.position, "the string and bytes arguments carry \($0.total) bytes together up to this one, over the limit of \(valueLimit)")
        }
    }
}
