import Glibc

/// Whether the loader insists that plugin files and directories are safe from
/// other users, like OpenSSH's StrictModes: owned by root or the current user,
/// and writable by neither group nor others.
public enum PluginTrust: Sendable {
    /// Refuse an insecure plugin file or directory at stage `trust` (the default).
    case strict
    /// Load it anyway; its report carries a warning that says so.
    case allowInsecure
}

extension PluginTrust {
    /// Applies the trust rule to the file or directory `status` describes: throws its
    /// refusal under ``strict``; returns the report warnings it earns (none for a safe one).
    func admit(_ path: String, _ status: FileStatus) throws(LoadFailure) -> [String] {
        guard let problem = TrustProblem(path, status) else { return [] }
        guard self == .allowInsecure else { throw problem.refusal }
        return [problem.warning]
    }
}

/// Why one plugin file or directory fails the trust rule.
struct TrustProblem: Sendable {
    /// "plugin file" or "plugin directory".
    let kind: String
    /// What is wrong, e.g. "is writable by others (mode 0666)".
    let cause: String
    /// The command that fixes it.
    let fix: String

    /// The user the trust rule trusts besides root: this process's effective user when the first
    /// file was checked (asked once, not once per library; a plugin that changes it later changes
    /// nothing here).
    private static let user = geteuid()

    /// The problem with the file or directory `status` describes, if any.
    /// Nothing is allocated for a file that passes: the loader asks this of every library.
    init?(_ path: String, _ status: FileStatus) {
        let user = Self.user
        let ownedByOther = status.owner != 0 && status.owner != user
        guard ownedByOther || status.permissions & 0o022 != 0 else { return nil }
        kind = status.isDirectory ? "plugin directory" : "plugin file"
        if ownedByOther {
            cause = "is owned by uid \(status.owner), neither root nor the current user (uid \(user))"
            fix = "chown \(user) '\(path)'"
        } else {
            let writers = [(0o020, "group"), (0o002, "others")].filter { status.permissions & UInt32($0.0) != 0 }.map(\.1)
            cause = "is writable by \(writers.joined(separator: " and ")) (mode 0\(String(status.permissions, radix: 8)))"
            fix = "chmod go-w '\(path)'"
        }
    }

    /// The refusal under ``PluginTrust/strict``.
    var refusal: LoadFailure {
        LoadFailure(.trust, "the \(kind) \(cause), so another user could change the code it runs; fix it with \(fix), or pass --allow-insecure")
    }

    /// The report's warning under ``PluginTrust/allowInsecure``.
    var warning: String {
        "loaded although the \(kind) \(cause) (--allow-insecure)"
    }
}
