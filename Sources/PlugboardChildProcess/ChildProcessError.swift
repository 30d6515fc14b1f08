import SystemPackage

/// A child process that could not be started, fed, read or waited for: the
/// operation, the executable and the system's cause.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What was being done: "start", "write to", "read from", "wait for", "signal".
    public let operation: String
    /// The program, as given to `ChildProcess.init`.
    public let executable: String
    /// The system error.
    public let cause: Errno

    /// "cannot start cc: No such file or directory".
    public var description: String { "cannot \(operation) \(executable): \(cause)" }
}
