/// What one validator check found: its status, why, and how long it took.
public struct CheckResult: Sendable, Encodable, Equatable {
    /// How a check ended.
    public enum Status: String, Sendable, Encodable {
        /// The library does what the check asks.
        case pass
        /// The library works, but something an author should fix was seen.
        case warn
        /// The library does not do what the check asks.
        case fail
        /// Plugin code crashed (or exited, or hung) in the check's worker.
        case crashed
        /// The check could not run (the library does not load).
        case skipped
    }

    /// The check's kebab-case name.
    public let check: String
    /// How it ended.
    public let status: Status
    /// One sentence: what was seen.
    public let reason: String
    /// How long the check ran, in milliseconds.
    public let milliseconds: Double

    /// True for `fail` and `crashed`: the statuses that make the validator fail.
    public var isFailure: Bool { status == .fail || status == .crashed }
}
