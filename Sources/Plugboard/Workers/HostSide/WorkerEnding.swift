import Glibc

/// How a worker stopped serving a call: the facts a host reports with the
/// plugin, the callback and the library.
public enum WorkerEnding: Error, Sendable, Equatable {
    /// A signal ended the worker (plugin code crashed, or something killed it).
    case crashed(signal: Int32)
    /// Plugin code called `exit` or `_exit` with this status.
    case exited(status: Int32)
    /// The call did not return within the call timeout; the host killed the worker.
    case timedOut(Duration)
    /// The host was asked to stop (a signal) while the call ran; the host killed the worker.
    case interrupted
    /// The channel broke while the worker still ran (the plugin closed its descriptor, say); the host killed it.
    case lost(String)

    /// "crashed with SIGSEGV", "exited with status 0", "did not return from … within 10 s"; `library`,
    /// when given and not `who`, is named after the callback. A nil `callback`: the worker ended
    /// between calls.
    func sentence(who: String, callback: String?, library: String?) -> String {
        let place = PluginLogRecord.place(of: who, in: library)
        let during = callback.map { "in \($0)" } ?? "between calls"
        return switch self {
        case .crashed(let signal): "\(who) crashed with \(Self.name(of: signal)) \(during)\(place)"
        case .exited(let status): "\(who) exited with status \(status) \(during)\(place)"
        case .timedOut(let limit):
            "\(who) did not return from \(callback ?? "a call") within \(limit.secondsText)\(place); its worker was stopped"
        case .lost(let cause): "\(who) lost its worker \(during)\(place): \(cause); the worker was stopped"
        case .interrupted: "\(who) was still in \(callback ?? "a call")\(place) when the host was asked to stop; its worker was stopped"
        }
    }

    /// "SIGSEGV", or "signal N" for one without a usual name.
    static func name(of signal: Int32) -> String {
        let names: [Int32: String] = [SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL",
                                      SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
                                      SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1", SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2",
                                      SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM", SIGSYS: "SIGSYS"]
        return names[signal] ?? "signal \(signal)"
    }
}
