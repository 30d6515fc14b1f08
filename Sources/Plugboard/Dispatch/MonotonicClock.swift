import Glibc

/// Nanoseconds on the monotonic clock: cheap enough to time every plugin call.
public enum MonotonicClock {
    /// `CLOCK_MONOTONIC` now, in nanoseconds.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
