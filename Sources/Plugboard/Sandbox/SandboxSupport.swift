import CSandbox
import Synchronization

/// What the running kernel offers the sandbox, probed once per process.
public struct SandboxSupport: Sendable, Equatable, CustomStringConvertible {
    /// Landlock's ABI version; 0 without Landlock.
    public let landlockABI: Int
    /// Whether seccomp filters can be installed.
    public let seccomp: Bool
    /// Whether `pidfd_open` works: the process-group guard of a worker that may start processes
    /// watches the worker with it, to end those processes with the worker.
    public let pidfd: Bool
    /// Whether a worker's threads can be counted apart from every other process's, which its
    /// thread limit needs (tried, and the limit checked, in a child of this process): a worker of a
    /// host running as root takes a real uid of its own (with seccomp, which refuses uid 0 again),
    /// any other makes a user namespace of its own.
    public let threads: Bool

    /// A description of a kernel's offer.
    public init(landlockABI: Int, seccomp: Bool, pidfd: Bool = true, threads: Bool = true) {
        self.landlockABI = landlockABI
        self.seccomp = seccomp
        self.pidfd = pidfd
        self.threads = threads
    }

    /// This kernel's offer.
    public static let kernel: SandboxSupport = {
        var support = pbs_support_t()
        pbs_probe(&support)
        return SandboxSupport(landlockABI: Int(support.landlock_abi), seccomp: support.seccomp != 0, pidfd: support.pidfd != 0,
                              threads: support.threads != 0)
    }()

    /// Whether this process warned of the missing layers.
    private static let warned = Mutex(false)

    /// Under ``SandboxMode/best``, tells `log`, once per process (a `list` makes a host per library),
    /// which layers this kernel lacks; nothing when it has them all.
    static func warnOnceOfMissingLayers(_ log: PluginHost.LogHandler) {
        let missing = kernel.missing
        guard !missing.isEmpty, warned.withLock({ warned in defer { warned = true }; return !warned }) else { return }
        log(PluginLogRecord(source: HostIdentity.name, plugin: nil, level: .warning,
                            message: "sandbox: this kernel lacks \(missing.joined(separator: "; ")); workers get the layers it has (--sandbox strict refuses to start them)"))
    }

    /// The layers the sandbox uses that this kernel lacks, in words; empty when it has them all.
    public var missing: [String] {
        var missing: [String] = []
        if landlockABI < PBS_LANDLOCK_FILES {
            missing.append("Landlock (files, TCP ports, signal scoping: Linux 6.12 or later, enabled with lsm=landlock)")
        } else if landlockABI < PBS_LANDLOCK_TCP {
            missing.append("Landlock ABI 4 for TCP ports (Linux 6.7)")
        }
        if landlockABI < PBS_LANDLOCK_SCOPES, landlockABI >= PBS_LANDLOCK_FILES {
            missing.append("Landlock ABI 6 for signal and abstract-socket scoping (Linux 6.12)")
        }
        if !seccomp { missing.append("seccomp (the system-call filter)") }
        if !threads {
            missing.append("a thread limit of each worker's own (it needs a user namespace per worker, or for a host running "
                           + "as root a user id per worker and seccomp; here one is refused, or the kernel does not hold a worker to it)")
        }
        return missing
    }

    /// The layer a worker `grant`ed programs to run lacks here, in words: `pidfd_open`, which its
    /// process-group guard needs to end the processes its plugins start with it; nil when it has it
    /// or needs none (under seccomp, a worker that may not run programs starts no process).
    public func missingGuard(for grant: SandboxGrant) -> String? {
        guard !grant.execute.isEmpty, !pidfd else { return nil }
        return "pidfd_open, with which the processes a plugin starts end with its worker (Linux 5.3; a container may refuse it)"
    }

    /// "Landlock ABI 7, seccomp, thread limit".
    public var description: String {
        [landlockABI > 0 ? "Landlock ABI \(landlockABI)" : "no Landlock", seccomp ? "seccomp" : "no seccomp",
         threads ? "thread limit" : "no thread limit"].joined(separator: ", ")
    }
}
