/// How a worker's libraries used the host services (log, files, fetch
/// completions) while loaded, as the worker reports it in `unloaded`.
///
/// Wire format: `other-thread-calls` `u64`, `other-threads` `u32`,
/// `calls-after-deinit` `u64`, in this order.
public struct ServiceCensus: Sendable, Equatable {
    /// Calls served from threads other than the one that ran the library's `init`
    /// (the dispatch thread): threads the library started.
    public var otherThreadCalls: UInt64
    /// How many distinct such threads called.
    public var otherThreads: UInt32
    /// Calls made after the library's `deinit` returned (each ignored): a thread the library did not stop.
    public var callsAfterDeinit: UInt64

    /// A census.
    public init(otherThreadCalls: UInt64, otherThreads: UInt32, callsAfterDeinit: UInt64) {
        self.otherThreadCalls = otherThreadCalls
        self.otherThreads = otherThreads
        self.callsAfterDeinit = callsAfterDeinit
    }

    /// No call at all.
    public static let zero = ServiceCensus(otherThreadCalls: 0, otherThreads: 0, callsAfterDeinit: 0)

    /// The census of two libraries together.
    public static func + (left: ServiceCensus, right: ServiceCensus) -> ServiceCensus {
        ServiceCensus(otherThreadCalls: left.otherThreadCalls &+ right.otherThreadCalls,
                      otherThreads: left.otherThreads &+ right.otherThreads,
                      callsAfterDeinit: left.callsAfterDeinit &+ right.callsAfterDeinit)
    }
}
