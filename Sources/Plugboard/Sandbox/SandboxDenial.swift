import CSandbox
import Glibc

/// A system call a confined worker made and its filter refused (with `EPERM`), as the worker
/// reported it: who made it and what it was, in words, with the grant that would allow it.
public struct SandboxDenial: Sendable, Equatable {
    /// The plugin, or the library stage (`/path/libx.so`), whose code made the call; nil when
    /// the worker did not know (a thread the plugin started, say).
    public let who: String?
    /// The callback it was in, if known.
    public let callback: String?
    /// What was attempted, in words ("open an IPv4 socket").
    public let operation: String
    /// The policy's grant that allows it, when one does ("network").
    public let grant: String?
    /// What makes two denials the same kind: the host reports each kind once per library.
    public let kind: String

    /// How many kinds of denial the host reports per worker; later kinds are not reported.
    static let kindsReported = 32

    /// How every denial's log line begins.
    public static let logPrefix = "sandbox: "

    /// The size of one report on the wire.
    static let recordSize = MemoryLayout<pbs_denial_t>.size

    /// The report in `bytes` (``recordSize`` of them).
    init?(record bytes: [UInt8]) {
        guard bytes.count == Self.recordSize else { return nil }
        let denial = bytes.withUnsafeBytes { $0.loadUnaligned(as: pbs_denial_t.self) }
        who = Self.text(denial.who)
        callback = Self.text(denial.callback)
        let name = pbs_call_name(denial.call).map { String(cString: $0) } ?? "system call \(denial.call)"
        let arguments = denial.arguments
        (operation, grant, kind) = Self.describe(name, arguments.0, arguments.1, arguments.2)
    }

    /// "sandbox: com.example.x tried to open an IPv4 socket in open_url; grant "network" in the policy to allow it".
    /// A `who` for which `isOwn` says false (neither `library` nor one of its plugins) is not believed:
    /// the report comes from the worker, where plugin code can write one naming any plugin. The
    /// library is named instead, and the name the report gave is quoted.
    public func sentence(library: String, isOwn: (String) -> Bool = { _ in true }) -> String {
        let place = callback.map { " in \($0)" } ?? ""
        let fileName = library.split(separator: "/").last.map(String.init) ?? library
        let remedy = grant.map { "grant \"\($0)\" to \(fileName) in the policy's \"libraries\" to allow it" }
            ?? "no grant allows it"
        let named = who.map { $0 == library || isOwn($0) ? $0 : "\(library) (its report named '\($0)', no plugin of the library)" }
        return Self.logPrefix + "\(named ?? library) tried to \(operation)\(place); \(remedy)"
    }

    private static func text<Tuple>(_ tuple: Tuple) -> String? {
        let text = withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return text.isEmpty ? nil : text
    }

    /// The call `name` with its first arguments in words, the grant that allows it, and its kind.
    private static func describe(_ name: String, _ first: UInt64, _ second: UInt64, _ third: UInt64) -> (String, String?, String) {
        switch name {
        case "socket":
            let type = second & 0xF
            let family: String = switch Int32(truncatingIfNeeded: first) {
            case AF_UNIX: "a Unix socket"
            case AF_INET: type == UInt64(SOCK_STREAM.rawValue) ? "a TCP socket" : type == UInt64(SOCK_DGRAM.rawValue) ? "a UDP socket" : "an IPv4 socket"
            case AF_INET6: type == UInt64(SOCK_STREAM.rawValue) ? "a TCP socket (IPv6)" : type == UInt64(SOCK_DGRAM.rawValue) ? "a UDP socket (IPv6)" : "an IPv6 socket"
            case AF_NETLINK: "a netlink socket"
            case AF_PACKET: "a packet socket"
            default: "a socket of family \(first)"
            }
            return ("open \(family)", "network", "socket \(family)")
        case "execve": return ("execute a program", "execute", name)
        case "execveat": return ("execute a program from a descriptor (execveat, fexecve)", nil, name)
        case "clone" where first & UInt64(PBS_CLONE_THREAD) == 0 && first & UInt64(PBS_CLONE_NAMESPACES) == 0, "fork", "vfork":
            return ("start a process (\(name))", "execute", "process")
        case "clone", "unshare", "setns": return ("create or enter a namespace (\(name))", nil, "namespace")
        case "socketpair": return ("open a socket pair other than a Unix stream pair", nil, name)
        case "setsid", "setpgid": return ("leave its process group (\(name))", nil, "process group")
        case "inotify_init", "inotify_init1": return ("watch folders (\(name))", nil, "inotify")
        case "prctl" where first & 0xFFFF_FFFF == UInt64(PBS_PR_SET_PDEATHSIG):
            return ("stop dying with the host (prctl PR_SET_PDEATHSIG)", nil, "death signal")
        case "prctl" where first & 0xFFFF_FFFF == UInt64(PBS_PR_SET_DUMPABLE):
            return ("make itself dumpable (prctl PR_SET_DUMPABLE)", nil, "dumpable")
        case "prlimit64":
            return ("\(third == 0 ? "read" : "change") the limits of another process (prlimit64)", nil, "limits")
        case "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop", "semctl":
            return ("use System V shared memory, message queues or semaphores (\(name))", nil, "System V IPC")
        case "setpriority", "ioprio_set", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr":
            return ("change the scheduling or priority of another process or thread (\(name))", nil, "scheduling")
        case "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat", "utime", "utimes",
             "utimensat", "futimesat", "setxattr", "lsetxattr", "fsetxattr", "setxattrat", "removexattr",
             "lremovexattr", "fremovexattr", "removexattrat":
            return ("change a file's mode, owner, times or attributes (\(name))", nil, "file metadata")
        case "ptrace": return ("trace a process (ptrace)", nil, name)
        case "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd", "kcmp":
            return ("reach into another process (\(name))", nil, name)
        case "mount", "umount2", "pivot_root", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr":
            return ("mount a file system (\(name))", nil, "mount")
        case "chroot": return ("change its root folder (chroot)", nil, name)
        case "keyctl", "add_key", "request_key": return ("use the kernel's keyrings (\(name))", nil, "keyring")
        case "ioctl": return ("type into a terminal (ioctl \(second == UInt64(TIOCSTI) ? "TIOCSTI" : "TIOCLINUX"))", nil, name)
        default: return ("call \(name)", nil, "call \(name)")
        }
    }
}
