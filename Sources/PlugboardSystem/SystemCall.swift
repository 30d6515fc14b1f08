import Glibc
import SystemPackage

/// Runs a C call that returns -1 and sets errno on failure, retrying when a
/// signal interrupted it, and turns the failure into a typed `Errno`.
///
/// The one retry-on-EINTR loop of the package: the file facade, the host
/// library and the command-line tool all make their system calls through it. Inlinable, so each
/// caller gets it specialized to its result type (generic, it took about 90 instructions a call).
@inlinable @discardableResult
public func systemCall<Result: BinaryInteger>(_ call: () -> Result) throws(Errno) -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        let failure = Errno(rawValue: errno)
        if failure != .interrupted { throw failure }
    }
}

/// A pipe whose ends are close-on-exec from birth, so no child that another thread spawns
/// meanwhile inherits it.
public func closeOnExecPipe() throws(Errno) -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    try systemCall { pipe2(&ends, O_CLOEXEC) }
    return (ends[0], ends[1])
}

/// glibc's `pipe2`, which the Glibc module hides behind _GNU_SOURCE.
@_silgen_name("pipe2")
private func pipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32
