import Glibc
import SystemPackage

/// Runs a C call that returns -1 and sets errno on failure, retrying when a
/// signal interrupted it, and turns the failure into a typed `Errno`.
///
/// The one retry-on-EINTR loop of the package: the file facade, the host
/// library and the command-line tool all make their system calls through it.
@discardableResult
public func systemCall<Result: BinaryInteger>(_ call: () -> Result) throws(Errno) -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        let failure = Errno(rawValue: errno)
        if failure != .interrupted { throw failure }
    }
}
