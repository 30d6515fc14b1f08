import Glibc

/// How many invocations the calling thread is nested in: 0 on a thread that runs no
/// invoked function, N while it runs a function invoked N deep. A plugin's `invoke`
/// from that thread is one deeper. Thread-local; not carried to threads a plugin starts.
enum InvocationDepth {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The calling thread's depth.
    static var current: UInt32 {
        UInt32(truncatingIfNeeded: UInt(bitPattern: pthread_getspecific(key)))
    }

    /// Runs `body` at `depth` on this thread, then restores the depth it had. Inlined: no closure
    /// context on a call's path.
    @inline(__always)
    static func with<Result, Failure>(_ depth: UInt32, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let saved = pthread_getspecific(key)
        if UInt(bitPattern: saved) == UInt(depth) { return try body() }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: UInt(depth)))
        defer { pthread_setspecific(key, saved) }
        return try body()
    }
}
