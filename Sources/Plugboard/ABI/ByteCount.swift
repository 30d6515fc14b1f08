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

    /// The bytes `value` carries: a string's or a buffer's; none for the others.
    @inline(__always)
    static func carried(by value: PluginValue) -> Int {
        switch value {
        case .string(let text): text.utf8.count
        case .bytes(let bytes): bytes.count
        default: 0
        }
    }

    /// Why the `values` of one call cannot go together, or nil: the first position (1-based) at
    /// which their strings and bytes carry more than ``valueLimit`` bytes together, and the
    /// sentence. One call's values go in one worker frame, so the limit is the same for all of
    /// them as for one. One pass adds their sizes (every call without a prepared frame makes it);
    /// the sentence is made only for a refusal.
    static func togetherRefusal(of values: [PluginValue]) -> (position: Int, reason: String)? {
        var total = 0
        for value in values { total &+= carried(by: value) }
        guard total > valueLimit else { return nil }
        total = 0
        for (index, value) in values.enumerated() {
            total += carried(by: value)
            if total > valueLimit {
                return (index + 1, "the string and bytes arguments carry \(total) bytes together up to this one, over the limit of \(valueLimit)")
            }
        }
        return nil
    }
}
