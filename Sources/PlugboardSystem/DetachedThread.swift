import Glibc
import SystemPackage

/// Runs `body` on a new thread that nobody joins; a failure to create it (the process or the
/// user is at its thread limit, as a sandboxed worker can be) is the `Errno` of `pthread_create`.
///
/// The thread has the default attributes: its stack size follows `RLIMIT_STACK` at the process's
/// start, as Foundation's `Thread` does. Why not `Thread`: it is Foundation proper, which would
/// link CoreFoundation and ICU into the plugin worker, whose code needs only FoundationEssentials
/// (about 3 MiB of resident memory and 0.5 ms of processor time in every worker's start).
public func startDetachedThread(_ body: @escaping @Sendable () -> Void) throws(Errno) {
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { context in
        if let context { Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().body() }
        return nil
    }, context)
    guard result == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        throw Errno(rawValue: result)
    }
    pthread_detach(thread)
}

/// The closure a new thread runs, carried through `pthread_create`'s one pointer.
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }
}
