import CFaultReporter

/// How many invocations the calling thread is nested in: 0 on a thread that runs no
/// invoked function, N while it runs a function invoked N deep. A plugin's `invoke`
/// from that thread is one deeper. Thread-local (`pbf_invocation_depth`, a C thread-local
/// variable: a key lookup cost more than the rest of a call's bookkeeping); not carried to
/// threads a plugin starts.
enum InvocationDepth {
    /// The calling thread's depth.
    static var current: UInt32 { pbf_depth() }

    /// Runs `body` at `depth` on this thread, then restores the depth it had. Inlined: no closure
    /// context on a call's path.
    @inline(__always)
    static func with<Result, Failure>(_ depth: UInt32, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let saved = pbf_depth()
        if saved == depth { return try body() }
        pbf_set_depth(depth)
        defer { pbf_set_depth(saved) }
        return try body()
    }
}
