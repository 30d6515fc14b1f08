/// How much of an event the host times.
public enum CallTiming: Sendable {
    /// Every plugin call: reports say how long each plugin took. The default.
    case perCall
    /// Only the whole event: each call's duration is nil. For hot paths where a
    /// clock read per plugin would cost more than the plugins themselves.
    case perEvent
}
