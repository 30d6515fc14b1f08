import Foundation
import Glibc

/// A child process started with `posix_spawnp`: cheap to start, so that timing
/// a child measures the child and not the parent's machinery.
struct ChildProcess {
    /// Where one of the child's output streams goes.
    enum Output {
        /// `/dev/null`.
        case discard
        /// The parent's own stream.
        case inherit
        /// A file, created or truncated.
        case file(String)
    }

    /// How a child ended.
    enum Termination: Equatable, CustomStringConvertible {
        /// It called `exit` with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)

        /// Whether it exited with status 0.
        var succeeded: Bool { self == .exited(0) }

        /// "exit status N" or "signal N".
        var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    /// What `run` returns: how the child ended, its standard output if captured,
    /// and the wall time from just before the spawn to just after the reap.
    struct Outcome {
        let termination: Termination
        let output: String
        let nanoseconds: UInt64
    }

    /// The process id.
    let pid: pid_t

    /// Starts `program` (searched in `PATH` when it has no slash) with `arguments`.
    /// `capture` receives the write end of a pipe as standard output when given.
    static func spawn(_ program: String, _ arguments: [String], stdout: Output, stderr: Output,
                      captureInto capture: Int32? = nil) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        /// Adds the file action that sends `descriptor` to `output`.
        func redirect(_ output: Output, _ descriptor: Int32) {
            switch output {
            case .inherit: break
            case .discard: posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            }
        }
        if let capture {
            posix_spawn_file_actions_adddup2(&actions, capture, 1)
        } else {
            redirect(stdout, 1)
        }
        redirect(stderr, 2)

        let argv = ([program] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") }
        defer { environment.forEach { free($0) } }
        var pid: pid_t = 0
        let status = (argv + [nil]).withUnsafeBufferPointer { argvPointer in
            (environment + [nil]).withUnsafeBufferPointer { envPointer in
                guard let argvBase = argvPointer.baseAddress, let envBase = envPointer.baseAddress else { return EINVAL }
                return posix_spawnp(&pid, program, &actions, nil, argvBase, envBase)
            }
        }
        guard status == 0 else {
            throw BenchmarkError("cannot start \(program): \(String(cString: strerror(status)))")
        }
        return ChildProcess(pid: pid)
    }

    /// Waits for the child to end.
    func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return .signaled(-1) }
        }
        return Self.termination(status)
    }

    /// Decodes a `waitpid` status.
    static func termination(_ status: Int32) -> Termination {
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    /// Runs `program` to its end, timing it; with `captureOutput` its standard
    /// output is read into the outcome, else it goes to `/dev/null`.
    static func run(_ program: String, _ arguments: [String], captureOutput: Bool = false,
                    stderr: Output = .discard) throws -> Outcome {
        guard captureOutput else {
            let start = Clock.now()
            let child = try spawn(program, arguments, stdout: .discard, stderr: stderr)
            let termination = child.wait()
            return Outcome(termination: termination, output: "", nanoseconds: Clock.now() &- start)
        }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw BenchmarkError("cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let start = Clock.now()
        let child: ChildProcess
        do {
            child = try spawn(program, arguments, stdout: .discard, stderr: stderr, captureInto: ends[1])
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += buffer[..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(ends[0])
        let termination = child.wait()
        return Outcome(termination: termination, output: String(decoding: bytes, as: UTF8.self),
                       nanoseconds: Clock.now() &- start)
    }
}
