/// What the scan cache remembers of one library file.
///
/// A library that loaded is remembered with its plugins and concerns. One that crashed,
/// hung or exited while being scanned is remembered with the reason, like GStreamer's
/// blacklist, until its file changes. An ordinary load failure is not remembered: it is
/// cheap to find again, and its cause often lies outside the file (a missing dependency,
/// the environment), so it is looked at on every run until it is fixed.
public enum ScanCacheEntry: Sendable {
    /// The library's report from a scan in a host of its own: its plugins and their
    /// concerns as it registers them alone (the rule on ids two libraries claim, and the
    /// trust warnings, are applied on every run). A failed report is not stored.
    case scanned(report: LoadReport)
    /// The library crashed, hung or exited while being scanned: the reason, naming the stage.
    case crashed(reason: LoadFailure)

    /// What a listing shows for the entry at `path`: the report, or a failure with the
    /// remembered crash's reason and how to scan the library again.
    public func report(at path: String) -> LoadReport {
        switch self {
        case .scanned(let report):
            return report
        case .crashed(let reason):
            return .failed(path, LoadFailure(
                reason.stage, reason.message + "; remembered until the file changes, or pass --retry-failed",
                systemError: reason.systemError))
        }
    }

    /// Whether it is worth keeping: a loaded library or a crash.
    var isRemembered: Bool {
        switch self {
        case .scanned(let report): report.status == .loaded
        case .crashed: true
        }
    }

    /// Whether it is a remembered crash.
    var isCrash: Bool {
        if case .crashed = self { return true }
        return false
    }
}
