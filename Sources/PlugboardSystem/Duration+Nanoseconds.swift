extension Duration {
    /// Whole nanoseconds, saturating. The one conversion of the package: dividing one `Duration` by
    /// another goes through a `Double`, which traps past 292 years.
    @inlinable
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (seconds < 0 ? .min : .max) : whole &+ attoseconds / 1_000_000_000
    }
}
