import Glibc
import PlugboardSystem
import Synchronization
import SystemPackage

/// A child process, started the one way the host (its plugin workers), the tests and the benchmark start one.
///
/// Why our own spawner and not swift-subprocess (1.0.2): its Linux spawn always
/// empties the child's signal mask and offers no hook to block signals in the child,
/// which the test of a `plugboard run` started with SIGINT and SIGTERM blocked needs;
/// its API is async and its `Execution` may not outlive a closure, while the tests'
/// helpers are synchronous and a live child is an object that a test keeps, writes
/// to and signals across calls; and the benchmark times children, so the parent's
/// part must stay a `posix_spawn` and a wait, without an event loop or a monitor thread.
///
/// The child starts with every signal at its default action (glibc's two internal
/// ones aside, which its `posix_spawn` leaves ignored) and only `blockedSignals` blocked: a thread of Swift Testing, Dispatch or Swift concurrency blocks signals,
/// and a child inherits the mask of the thread that spawns it (cmake would never see
/// its own children exit, and `plugboard run` could not be interrupted).
///
/// The child gets its three streams and the descriptors passed to it, nothing else of
/// this process. The parent's ends of `.pipe` streams are close-on-exec from birth, so no
/// child spawned meanwhile by another thread inherits them. The object owns them and the
/// child: when it goes away a child still running is killed and reaped, so no test
/// leaves a process behind.
public final class ChildProcess: Sendable {
    /// The child's process id; it stays the child's until `wait` or `reapIfEnded` reaps it.
    public let pid: pid_t
    /// The program, as given.
    public let executable: String
    /// Whether the child leads a process group of its own, which then ends with it.
    let leadsProcessGroup: Bool
    /// The read end of the child's standard output, when it is `.pipe`; owned by this object unless
    /// handed over (``handOverOutputs()``).
    public let output: Int32?
    /// The read end of the child's standard error, when it is `.pipe`; owned by this object unless
    /// handed over (``handOverOutputs()``).
    public let errorOutput: Int32?
    /// Whether ``handOverOutputs()`` gave ``output`` and ``errorOutput`` to the caller.
    private let outputsHandedOver = Mutex(false)

    /// How the child ended, once reaped: until then `pid` is still the child's.
    let termination = Mutex<Termination?>(nil)
    /// The write end of the child's standard input, when it is `.pipe`, until closed.
    let input: Mutex<Int32?>

    /// Starts `executable` (searched in `PATH` when it holds no slash) with `arguments`,
    /// `environment` (this process's when nil) in `workingDirectory` (this process's
    /// when nil), its streams connected as given and `blockedSignals` blocked.
    /// `passing` hands the child more descriptors (child's number: this process's
    /// descriptor, which may be close-on-exec); `ownProcessGroup` starts the child in a
    /// process group of its own, so a terminal's Ctrl-C reaches only this process; the
    /// group's other processes (the child's own children) are killed when the child ends.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                workingDirectory: String? = nil, input: ChildStream = .inherit, output: ChildStream = .inherit,
                error: ChildStream = .inherit, passing descriptors: [Int32: Int32] = [:],
                ownProcessGroup: Bool = false, blockedSignals: [Int32] = []) throws(ChildProcessError) {
        /// A failure to start, naming the working directory when one was asked for.
        func startFailure(_ cause: Errno) -> ChildProcessError {
            ChildProcessError(operation: "start", executable: executable + (workingDirectory.map { " in \($0)" } ?? ""),
                              cause: cause)
        }
        var pipes: [StreamPipe?] = []
        do throws(Errno) {
            for (stream, childReads) in [(input, true), (output, false), (error, false)] {
                pipes.append(try StreamPipe.make(for: stream, childReads: childReads))
            }
        } catch {
            for pipe in pipes.compactMap({ $0 }) { close(pipe.childEnd); close(pipe.parentEnd) }
            throw startFailure(error)
        }
        let (inputPipe, outputPipe, errorPipe) = (pipes[0], pipes[1], pipes[2])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        var status = Self.connect(input, to: 0, pipe: inputPipe?.childEnd, &actions)
        if status == 0 { status = Self.connect(output, to: 1, pipe: outputPipe?.childEnd, &actions) }
        if status == 0 { status = Self.connect(error, to: 2, pipe: errorPipe?.childEnd, &actions) }
        for (childDescriptor, descriptor) in descriptors.sorted(by: { $0.key < $1.key }) where status == 0 {
            status = posix_spawn_file_actions_adddup2(&actions, descriptor, childDescriptor)
        }
        // Nothing else of this process reaches the child: a descriptor another thread opened without
        // close-on-exec (Foundation's file copy does) would live on in it, and a program copied that
        // way could not be run while the child runs ("Text file busy").
        let firstUnused = max(2, descriptors.keys.max() ?? 2) + 1
        if status == 0 { status = posix_spawn_file_actions_addclosefrom_np(&actions, firstUnused) }
        if status == 0, let workingDirectory { status = posix_spawn_file_actions_addchdir_np(&actions, workingDirectory) }
        if status == 0 { status = Self.resetSignals(blocking: blockedSignals, ownProcessGroup: ownProcessGroup, &attributes) }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let variables = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { (argv + (variables ?? [])).forEach { free($0) } }
        var child: pid_t = 0
        if status == 0, let variables {
            status = posix_spawnp(&child, executable, &actions, &attributes, argv, variables)
        } else if status == 0 {
            status = posix_spawnp(&child, executable, &actions, &attributes, argv, environ)
        }
        for pipe in pipes.compactMap({ $0 }) { close(pipe.childEnd) }
        guard status == 0 else {
            for pipe in pipes.compactMap({ $0 }) { close(pipe.parentEnd) }
            throw startFailure(Errno(rawValue: status))
        }
        pid = child
        self.executable = executable
        leadsProcessGroup = ownProcessGroup
        self.output = outputPipe?.parentEnd
        self.errorOutput = errorPipe?.parentEnd
        self.input = Mutex(inputPipe?.parentEnd)
    }

    /// Kills the child if it still runs, reaps it, and closes the pipe ends it still owns.
    deinit {
        stop()
        closeInput()
        guard !outputsHandedOver.withLock({ $0 }) else { return }
        for descriptor in [output, errorOutput].compactMap({ $0 }) { close(descriptor) }
    }

    /// Gives ``output`` and ``errorOutput`` to the caller, who closes each once done reading it; this
    /// object no longer does. For readers on threads of their own, which alone know when they have
    /// read the last byte, while this object may be kept for long after (a replaced plugin worker's).
    public func handOverOutputs() {
        outputsHandedOver.withLock { $0 = true }
    }

    /// Adds the file action that connects the child's `descriptor` to `stream`;
    /// `pipe` is the child's end of the pipe a `.pipe` stream made. 0 or an error number.
    private static func connect(_ stream: ChildStream, to descriptor: Int32, pipe: Int32?,
                                _ actions: inout posix_spawn_file_actions_t) -> Int32 {
        let writing = descriptor == 0 ? O_RDONLY : O_WRONLY
        switch stream {
        case .inherit: return 0
        case .discard: return posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", writing, 0)
        case .file(let path):
            let flags = descriptor == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC
            return posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o644)
        case .pipe:
            guard let pipe else { return EINVAL }
            return posix_spawn_file_actions_adddup2(&actions, pipe, descriptor)
        case .sameAsOutput:
            guard descriptor == 2 else { return EINVAL }
            return posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
    }

    /// Sets every signal but SIGKILL and SIGSTOP to its default action in the child,
    /// and its mask to `blocked`; with `ownProcessGroup`, a new process group. 0 or an error number.
    private static func resetSignals(blocking blocked: [Int32], ownProcessGroup: Bool,
                                     _ attributes: inout posix_spawnattr_t) -> Int32 {
        var mask = sigset_t(), defaults = sigset_t()
        sigemptyset(&mask)
        for signal in blocked where sigaddset(&mask, signal) != 0 { return EINVAL }
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        var status = posix_spawnattr_setsigmask(&attributes, &mask)
        if status == 0 { status = posix_spawnattr_setsigdefault(&attributes, &defaults) }
        let group = ownProcessGroup ? POSIX_SPAWN_SETPGROUP : 0
        if status == 0, ownProcessGroup { status = posix_spawnattr_setpgroup(&attributes, 0) }
        if status == 0 {
            status = posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | group))
        }
        return status
    }
}

/// glibc's `posix_spawn_file_actions_addchdir_np`, which the Glibc module hides behind _GNU_SOURCE.
@_silgen_name("posix_spawn_file_actions_addchdir_np")
private func posix_spawn_file_actions_addchdir_np(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>,
                                                   _ path: UnsafePointer<CChar>) -> Int32

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which the Glibc module hides behind _GNU_SOURCE.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func posix_spawn_file_actions_addclosefrom_np(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>,
                                                      _ first: Int32) -> Int32
