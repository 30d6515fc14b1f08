import Foundation

/// A duration as Plugboard shows it to a person, the one way (reports, trace lines):
/// "850 ns", "12.3 µs", "4.10 ms", "1.20 s".
public enum DurationText {
    /// `nanoseconds` in the largest unit that keeps it at least 1, with the precision of its unit.
    public static func of(nanoseconds: UInt64) -> String {
        let value = Double(nanoseconds)
        switch nanoseconds {
        case ..<1_000: return "\(nanoseconds) ns"
        case ..<1_000_000: return String(format: "%.1f µs", value / 1e3)
        case ..<1_000_000_000: return String(format: "%.2f ms", value / 1e6)
        default: return String(format: "%.2f s", value / 1e9)
        }
    }
}
