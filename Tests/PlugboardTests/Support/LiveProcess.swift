import Foundation
import Glibc
import Synchronization

/// A child process whose standard input stays open and whose output (stdout and
/// stderr together) is read as it comes, so a test can wait for a line, then act.
///
/// Started with `posix_spawn` and an explicit signal mask: Foundation's `Process`
/// hands the child the mask of the calling thread, and test threads block
/// nearly every signal, which would hide SIGINT and SIGTERM from the child.
final class LiveProcess: Sendable {
    /// How the child ended.
    enum Ending: Equatable {
        case exit(Int32)
        case signal(Int32)
        case stillRunning
    }

    let pid: pid_t
    private let input: Int32
    private let collected = Mutex(Data())
    private let finishedReading = Mutex(false)
    private let ending = Mutex(Ending.stillRunning)

    /// Starts `executable` with `arguments`; `blockedSignals` are blocked in the child
    /// (none by default), and SIGINT, SIGTERM and SIGPIPE have their default action.
    init(_ executable: String, _ arguments: [String], blockedSignals: [Int32] = []) throws {
        var inputPipe: [Int32] = [-1, -1], outputPipe: [Int32] = [-1, -1]
        guard pipe2(&inputPipe, O_CLOEXEC) == 0, pipe2(&outputPipe, O_CLOEXEC) == 0 else {
            throw TestFailure("pipe2 failed: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t(), defaults = sigset_t()
        sigemptyset(&mask)
        for signal in blockedSignals { sigaddset(&mask, signal) }
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        close(inputPipe[0])
        close(outputPipe[1])
        guard status == 0 else {
            close(inputPipe[1])
            close(outputPipe[0])
            throw TestFailure("posix_spawn \(executable) failed: \(String(cString: strerror(status)))")
        }
        pid = child
        input = inputPipe[1]
        let reading = outputPipe[0]
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(reading, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                collected.withLock { $0.append(contentsOf: chunk[..<count]) }
            }
            close(reading)
            finishedReading.withLock { $0 = true }
        }
    }

    /// Everything the process printed so far.
    var output: String { String(decoding: collected.withLock { $0 }, as: UTF8.self) }

    /// Writes to the child's standard input (which stays open).
    /// SIGPIPE is blocked around the write (and a pending one taken back), so a child
    /// that already ended makes this throw instead of killing the test process.
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var pipeSignal = sigset_t(), previous = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        let written = bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
        let error = errno
        if written < 0 && error == EPIPE {
            var noWait = timespec()
            _ = sigtimedwait(&pipeSignal, nil, &noWait)
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        guard written == bytes.count else { throw TestFailure("cannot write to the child: \(String(cString: strerror(error)))") }
    }

    /// Reaps the child if it ended; its ending so far.
    private func poll() -> Ending {
        ending.withLock { ending in
            guard ending == .stillRunning else { return ending }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return ending }
            ending = status & 0x7F == 0 ? .exit((status >> 8) & 0xFF) : .signal(status & 0x7F)
            return ending
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
                kill(pid, SIGKILL)
                let killedBy = ContinuousClock.now + .seconds(5)
                while poll() == .stillRunning && ContinuousClock.now < killedBy { usleep(2_000) }
                break
            }
            usleep(2_000)
        }
        closeInput()
        let drained = ContinuousClock.now + .seconds(5)
        while !finishedReading.withLock({ $0 }) && ContinuousClock.now < drained { usleep(2_000) }
        return (poll(), output, timedOut)
    }

    private let inputClosed = Mutex(false)

    private func closeInput() {
        inputClosed.withLock { closed in
            if !closed { close(input) }
            closed = true
        }
    }

    /// Ends the child if it still runs, and reaps it (cleanup after a failed expectation).
    func stop() {
        if poll() == .stillRunning {
            kill(pid, SIGKILL)
            _ = waitForExit(timeout: .seconds(5))
        }
        closeInput()
    }
}

/// glibc's `pipe2`, which the Glibc module hides behind _GNU_SOURCE: the pipe is
/// close-on-exec from birth, so no child that another test spawns meanwhile inherits it.
@_silgen_name("pipe2")
private func pipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

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
