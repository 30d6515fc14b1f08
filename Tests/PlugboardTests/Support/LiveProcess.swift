import Foundation
import Glibc
import PlugboardChildProcess
import Synchronization

/// A child process whose standard input stays open and whose output (stdout and
/// stderr together) is read as it comes, so a test can wait for a line, then act.
/// It starts with every signal at its default action and only `blockedSignals` blocked
/// (see `ChildProcess`); it is killed and reaped at the latest when this object goes away.
final class LiveProcess: Sendable {
    /// How the child ended.
    enum Ending: Equatable {
        case exit(Int32)
        case signal(Int32)
        case stillRunning
    }

    private let child: ChildProcess
    private let collected = Mutex(Data())
    private let finishedReading = Mutex(false)

    /// The child's process id.
    var pid: pid_t { child.pid }

    /// Starts `executable` with `arguments` and the tests' hermetic environment (XDG_DATA_HOME
    /// in a temporary folder, so a `plugboard run` never writes into the real home); `blockedSignals`
    /// are blocked in the child (none by default), every other signal has its default action.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = TestPaths.hermeticEnvironment,
         blockedSignals: [Int32] = []) throws {
        child = try ChildProcess(executable, arguments, environment: environment,
                                 input: .pipe, output: .pipe, error: .sameAsOutput, blockedSignals: blockedSignals)
        guard let reading = child.output else { throw TestFailure("no output pipe for \(executable)") }
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while let count = try? child.read(reading, into: &chunk), count > 0 {
                collected.withLock { $0.append(contentsOf: chunk[..<count]) }
            }
            finishedReading.withLock { $0 = true }
        }
    }

    /// Everything the process printed so far.
    var output: String { String(decoding: collected.withLock { $0 }, as: UTF8.self) }

    /// Writes to the child's standard input (which stays open); throws, rather than
    /// raising SIGPIPE in the test process, when the child already ended.
    func send(_ text: String) throws {
        try child.send(Array(text.utf8))
    }

    /// Closes the child's standard input: it reads the end.
    func closeInput() {
        child.closeInput()
    }

    /// Reaps the child if it ended; its ending so far.
    private func poll() -> Ending {
        switch try? child.reapIfEnded() {
        case .exited(let status): .exit(status)
        case .signaled(let signal): .signal(signal)
        case nil: .stillRunning
        }
    }

    /// Waits until the output contains `text`; false on timeout or when the child ended without printing it.
    func waitForOutput(containing text: String, timeout: Duration = .seconds(20)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if output.contains(text) { return true }
            if poll() != .stillRunning && finishedReading.withLock({ $0 }) { return output.contains(text) }
            usleep(2_000)
        }
        return false
    }

    /// Waits for the child to end (killing it after `timeout`) and for its output to be read.
    func waitForExit(timeout: Duration = .seconds(10)) -> (ending: Ending, output: String, timedOut: Bool) {
        let deadline = ContinuousClock.now + timeout
        var timedOut = false
        while poll() == .stillRunning {
            if ContinuousClock.now >= deadline {
                timedOut = true
                child.stop()
                break
            }
            usleep(2_000)
        }
        child.closeInput()
        let drained = ContinuousClock.now + .seconds(5)
        while !finishedReading.withLock({ $0 }) && ContinuousClock.now < drained { usleep(2_000) }
        return (poll(), output, timedOut)
    }

    /// Ends the child if it still runs, and reaps it (cleanup after a failed expectation).
    func stop() {
        child.stop()
        child.closeInput()
    }
}

/// Running the real binary as another user, to make "permission denied" real when the tests run as root.
enum PrivilegeDrop {
    static var isRoot: Bool { geteuid() == 0 }

    static let setpriv: String? = ["/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv"]
        .first(where: FileManager.default.isExecutableFile(atPath:))

    /// The arguments that run `executable` as user and group nobody (65534).
    static func asNobody(_ executable: String, _ arguments: [String]) -> (String, [String]) {
        (setpriv ?? "setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", executable] + arguments)
    }

    /// Why the binary cannot be run as nobody here, or nil if it can.
    static let unavailableReason: String? = {
        guard isRoot else { return "not running as root" }
        guard setpriv != nil else { return "setpriv is not installed" }
        let binary = TestPaths.plugboard
        guard binary.hasPrefix("/") else { return "the plugboard binary was not found" }
        for directory in [URL(fileURLWithPath: binary).deletingLastPathComponent(), URL(fileURLWithPath: NSTemporaryDirectory())] {
            if let closed = untraversableAncestor(of: directory) { return "\(closed) is not traversable by other users" }
        }
        let (tool, arguments) = asNobody(binary, ["--version"])
        guard let probe = try? run(tool, arguments), probe.status == 0 else {
            return "the plugboard binary does not run as user nobody"
        }
        return nil
    }()

    /// The first of `directory` and its ancestors that other users cannot traverse, or nil.
    private static func untraversableAncestor(of directory: URL) -> String? {
        var directory = directory.standardizedFileURL
        while true {
            var info = stat()
            guard stat(directory.path, &info) == 0 else { return directory.path }
            if info.st_mode & S_IXOTH == 0 { return directory.path }
            if directory.path == "/" { return nil }
            directory.deleteLastPathComponent()
        }
    }
}
