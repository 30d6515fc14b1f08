import CFaultReporter
import Glibc

/// What plugin code one host's dispatch thread is running, kept where the
/// fatal-signal handler, the exit check and the call-timeout watchdog can read
/// it (see `fault_reporter.h`). A load and three relaxed stores per run of calls (an
/// event, a loading stage), one release store per call and one at the end. A run nested in a
/// plugin's call (its callback dispatched an event) names that call again when it ends.
struct CallRecord: @unchecked Sendable {
    /// The C record; never freed, so readers on other threads or in a signal handler are always safe.
    let pointer: UnsafeMutablePointer<pbf_record_t>

    /// A new record in the process's list.
    init() {
        pointer = pbf_record_create()
    }

    /// Starts a run of `callback` calls on this thread. Returns the plugin call this run is nested
    /// in (a callback that dispatches an event, delivers or calls a plugin), which ``end(resuming:)``
    /// names again when the run ends; nil when none is running here.
    @inline(__always)
    func begin(_ callback: StaticString) -> Running? {
        begin(UnsafeRawPointer(callback.utf8Start).assumingMemoryBound(to: CChar.self))
    }

    /// Starts a run of calls named `callback`, a C string that is never freed (a plugin function's
    /// name); returns the call it is nested in, as ``begin(_:)-(StaticString)`` does.
    @inline(__always)
    func begin(_ callback: UnsafePointer<CChar>) -> Running? {
        let thread = UInt(bitPattern: Int(bitPattern: pthread_self()))
        let outer = pbf_label_now(pointer) == nil ? nil : running(on: thread)
        pbf_begin(pointer, callback, thread)
        return outer
    }

    /// The code of `label` is about to run.
    @inline(__always)
    func enter(_ label: UnsafePointer<pbf_label_t>) {
        pbf_enter(pointer, label)
    }

    /// No plugin code runs any more (the calls go to a worker, which records its own).
    @inline(__always)
    func leave() {
        pbf_leave(pointer)
    }

    /// Ends a run of calls: no plugin code runs any more, or, when the run was nested in `outer`,
    /// the outer call's code again (in a new run), so that a fault or a timeout after the nested
    /// run still names it.
    @inline(__always)
    func end(resuming outer: Running?) {
        guard let outer else { return pbf_leave(pointer) }
        resume(outer)
    }

    /// Names `outer` again, in a new run; out of line, as a nested run is rare.
    @inline(never)
    private func resume(_ outer: Running) {
        pbf_begin(pointer, outer.callback, UInt(bitPattern: Int(bitPattern: pthread_self())))
        pbf_enter(pointer, outer.label)
    }

    /// The plugin call this record says `thread` is running, or nil.
    func running(on thread: UInt) -> Running? {
        var callback: UnsafePointer<CChar>?
        var sequence: UInt64 = 0
        guard let label = pbf_current(pointer, &callback, &sequence), pointer.pointee.thread == thread else { return nil }
        return Running(label: label, callback: callback)
    }

    /// A plugin call under way in a record: its code's label and its callback.
    struct Running {
        let label: UnsafePointer<pbf_label_t>
        let callback: UnsafePointer<CChar>?
    }
}
