import Glibc

extension Duration {
    /// The time `time` gives (a `stat` field, a clock's reading).
    init(_ time: timespec) {
        self = .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// `CLOCK_REALTIME` now: the time since the epoch, as file times are given.
    static var sinceEpoch: Duration {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Duration(now)
    }
}
