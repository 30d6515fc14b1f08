/// A duration as Plugboard shows it to a person, the one way (reports, trace lines):
/// "850 ns", "12.3 µs", "4.10 ms", "1.20 s".
public enum DurationText {
    /// `nanoseconds` in the largest unit that keeps it at least 1, with the precision of its unit
    /// (rounded half up).
    public static func of(nanoseconds: UInt64) -> String {
        switch nanoseconds {
        case ..<1_000: "\(nanoseconds) ns"
        case ..<1_000_000: decimal(nanoseconds, unit: 1_000, digits: 1) + " µs"
        case ..<1_000_000_000: decimal(nanoseconds, unit: 1_000_000, digits: 2) + " ms"
        default: decimal(nanoseconds, unit: 1_000_000_000, digits: 2) + " s"
        }
    }

    /// `nanoseconds / unit` with `digits` (1 or 2) decimals, in whole numbers: no rounding of a
    /// binary fraction on the way.
    private static func decimal(_ nanoseconds: UInt64, unit: UInt64, digits: Int) -> String {
        let scale: UInt64 = digits == 1 ? 10 : 100
        let step = unit / scale
        let scaled = nanoseconds / step + (nanoseconds % step * 2 >= step ? 1 : 0)
        let fraction = String(scaled % scale)
        return "\(scaled / scale)." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
}
