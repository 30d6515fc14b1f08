import CFaultReporter
import Glibc

/// Names the plugin whose code was running when the process dies.
///
/// Once installed, a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT)
/// raised while any host of the process is inside a plugin call prints one
/// line first, `plugboard: com.example.x crashed with SIGSEGV in open_url
/// (/path/libx.so)` (or `in init`, `in register_plugins`, `in plugboard_entry`),
/// written with async-signal-safe calls only; then the signal goes on to the
/// handler that was there before (the Swift runtime's backtrace, or the
/// default action), so the process dies as it would have. Plugin code that
/// calls `exit` is named the same way (`… called exit in init`) by an
/// `atexit` check. `_exit` cannot be seen from inside the process.
///
/// A process-wide choice, so the embedding application makes it: the host
/// library never installs signal handlers by itself.
public enum FaultReporter {
    /// Installs the handlers (once per process; later calls only change
    /// `descriptor`) and gives the calling thread an alternate signal stack,
    /// so a stack overflow is reported too. Returns false if a handler could
    /// not be installed.
    @discardableResult
    public static func install(reportingTo descriptor: Int32 = STDERR_FILENO) -> Bool {
        pbf_install(descriptor)
    }

    /// Gives the calling thread an alternate signal stack, for a host that
    /// dispatches from a thread other than the one that called ``install(reportingTo:)``.
    @discardableResult
    public static func prepareDispatchThread() -> Bool {
        pbf_prepare_thread()
    }
}
