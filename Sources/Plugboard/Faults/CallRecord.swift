import CFaultReporter
import Glibc

/// What plugin code one host's dispatch thread is running, kept where the
/// fatal-signal handler, the exit check and the call-timeout watchdog can read
/// it (see `fault_reporter.h`). Three relaxed stores per run of calls (an event,
/// a loading stage), one release store per call and one at the end.
struct CallRecord: @unchecked Sendable {
    /// The C record; never freed, so readers on other threads or in a signal handler are always safe.
    let pointer: UnsafeMutablePointer<pbf_record_t>

    /// A new record in the process's list.
    init() {
        pointer = pbf_record_create()
    }

    /// Starts a run of `callback` calls on this thread.
    @inline(__always)
    func begin(_ callback: StaticString) {
        pbf_begin(pointer, UnsafeRawPointer(callback.utf8Start).assumingMemoryBound(to: CChar.self),
                  UInt(bitPattern: Int(bitPattern: pthread_self())))
    }

    /// Starts a run of calls named `callback`, a C string that is never freed (a plugin function's name).
    @inline(__always)
    func begin(_ callback: UnsafePointer<CChar>) {
        pbf_begin(pointer, callback, UInt(bitPattern: Int(bitPattern: pthread_self())))
    }

    /// The code of `label` is about to run.
    @inline(__always)
    func enter(_ label: UnsafePointer<pbf_label_t>) {
        pbf_enter(pointer, label)
    }

    /// No plugin code runs any more.
    @inline(__always)
    func leave() {
        pbf_leave(pointer)
    }
}
