/// How checks name their limits and sizes, in descriptions and reasons alike.
extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    /// "2 s" for whole seconds, else "200 ms" (rounded to the millisecond).
    var text: String {
        let (seconds, attoseconds) = components
        return attoseconds == 0 ? "\(seconds) s" : "\(Int(milliseconds.rounded())) ms"
    }
}

extension Int {
    /// This many bytes as "1 MiB" or "60 KiB" when a whole number of those, else "N bytes".
    var bytesText: String {
        if self >= 1 << 20, isMultiple(of: 1 << 20) { return "\(self >> 20) MiB" }
        if self >= 1 << 10, isMultiple(of: 1 << 10) { return "\(self >> 10) KiB" }
        return "\(self) bytes"
    }
}
