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
        try admit(TrustProblem(path, status))
    }

    /// Applies the trust rule to the folders holding the library at `path` when it is named on its
    /// own (a scanned folder has its own check): a user who may write one could put another file,
    /// or another link, in its place between its check and its load. Those are the folder of the
    /// name as given and, past symbolic links, the folder of the real file. A sticky folder such
    /// as `/tmp` passes its write bits, as there only a file's owner may rename or remove it.
    /// Nothing to check when there is no such file (its own check says so).
    func admitFolder(holding path: String) throws(LoadFailure) -> [String] {
        guard let resolved = realpath(path, nil) else { return [] }
        let file = String(cString: resolved)
        free(resolved)
        var warnings: [String] = []
        var checked: [FileIdentity] = []
        for folder in [Self.folder(of: file), Self.folder(of: path)] {
            guard let status = try? FileStatus.of(folder) else {
                throw LoadFailure(.trust, "cannot check the folder '\(folder)' of the plugin file, so another user might change the code it runs")
            }
            guard !checked.contains(status.identity) else { continue }
            checked.append(status.identity)
            warnings += try admit(TrustProblem(folder, status, kind: "folder '\(folder)' of the plugin file", stickyPasses: true))
        }
        return warnings
    }

    /// The folder that holds the entry `path` names: "." for a bare name.
    private static func folder(of path: String) -> String {
        path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    }

    /// The refusal of `problem` under ``strict``, or the warnings it earns.
    private func admit(_ problem: TrustProblem?) throws(LoadFailure) -> [String] {
        guard let problem else { return [] }
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

    /// The problem with the file or directory `status` describes, if any, called `kind` (by default
    /// "plugin file" or "plugin directory"); with `stickyPasses`, a sticky directory's write bits are no problem.
    /// Nothing is allocated for a file that passes: the loader asks this of every library.
    init?(_ path: String, _ status: FileStatus, kind: @autoclosure () -> String? = nil, stickyPasses: Bool = false) {
        let user = Self.user
        let ownedByOther = status.owner != 0 && status.owner != user
        let writable = status.permissions & 0o022 != 0 && !(stickyPasses && status.permissions & 0o1000 != 0)
        guard ownedByOther || writable else { return nil }
        self.kind = kind() ?? (status.isDirectory ? "plugin directory" : "plugin file")
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
