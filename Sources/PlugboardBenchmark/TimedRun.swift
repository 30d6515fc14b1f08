import PlugboardChildProcess

/// A child process run to its end and timed: how it ended, its standard output when
/// captured, and the wall time from just before the spawn to just after the reap.
struct TimedRun {
    let termination: Termination
    let output: String
    let nanoseconds: UInt64

    /// Runs `program` (searched in `PATH` when it has no slash) with `arguments` to its end;
    /// with `captureOutput` its standard output is read into `output`, else it goes to `/dev/null`.
    init(_ program: String, _ arguments: [String], captureOutput: Bool = false, stderr: ChildStream = .discard) throws {
        let start = Clock.now()
        let child = try ChildProcess(program, arguments, output: captureOutput ? .pipe : .discard, error: stderr)
        let finished = try child.collect()
        nanoseconds = Clock.now() &- start
        termination = finished.termination
        output = String(decoding: finished.output, as: UTF8.self)
    }
}
