/// What a running host did about one library that appeared, changed or disappeared in its
/// plugin folders (``PluginHost/applyChanges(in:trust:)``), or that the application joined,
/// reloaded or unloaded by path.
public struct LibraryChange: Sendable, Codable {
    /// What happened; the `--json` line's `type`.
    public enum Kind: String, Sendable, Codable {
        /// A new library's plugins take part from the next event.
        case joined
        /// A new library could not join (``LibraryChange/failure`` says why); nothing of it takes part.
        case joinFailed = "join-failed"
        /// A new name for a file the host loaded already (a link, a folder reached twice): skipped as
        /// at the start, no failure (``LibraryChange/load``'s `sameFileAs` names the library it is).
        case skipped
        /// A changed library's new version replaced the old one, its plugins' states handed over.
        case reloaded
        /// A changed library's new version could not replace the old one, which keeps serving.
        case reloadFailed = "reload-failed"
        /// A removed library's plugins saved their states and left.
        case left
        /// A library loaded in the host's process changed or was removed: it cannot be replaced or
        /// removed (libraries are never unloaded), and keeps serving until the host restarts.
        case restartNeeded = "restart-needed"
    }

    /// What happened.
    public internal(set) var kind: Kind
    /// The library's path.
    public let path: String
    /// The plugins' version before the change (reload, leave): one version, or `id version` pairs.
    public var fromVersion: String?
    /// The plugins' version after the change (join, reload).
    public var toVersion: String?
    /// The plugins that joined, took over, or left.
    public var plugins: [PluginID] = []
    /// The plugins of the old version that the new one no longer has: they left.
    public var departed: [PluginID] = []
    /// The load of the new file (join, reload), as at start.
    public var load: LoadReport?
    /// Restoring the new plugins' states and saving the old ones', in that order.
    public var states: [SavedStateReport] = []
    /// The events that brought the new plugins to where the application is (will-finish-launching,
    /// did-finish-launching, the current app state), each with its answers.
    public var catchUp: [EventReport] = []
    /// Why the change failed, or why it needs a restart.
    public var failure: String?
    /// What went wrong without stopping the change: a late veto, an old worker that failed in `deinit`.
    public var warnings: [String] = []
    /// From the start of the change to the new plugins serving (or to the failure).
    public var nanoseconds: UInt64 = 0

    /// A change of `kind` to the library at `path`.
    public init(_ kind: Kind, path: String) {
        self.kind = kind
        self.path = path
    }

    /// The change in one sentence: `reloaded /p/libx.so 1.2.0 → 1.3.0 in 14 ms`,
    /// `reload of /p/libx.so failed: … ; 1.2.0 kept`.
    public var sentence: String {
        let took = DurationText.of(nanoseconds: nanoseconds)
        return switch kind {
        case .joined: "joined \(path) \(toVersion ?? "?") in \(took): " + names(plugins)
        case .joinFailed: "\(path) could not join: \(failure ?? "unknown cause")"
        case .skipped: "skipped \(path): the same file as \(load?.sameFileAs ?? "a library loaded already")"
        case .reloaded: "reloaded \(path) \(fromVersion ?? "?") → \(toVersion ?? "?") in \(took)"
            + (departed.isEmpty ? "" : "; left: " + names(departed))
        case .reloadFailed: "reload of \(path) failed: \(failure ?? "unknown cause"); \(fromVersion ?? "the previous version") kept"
        case .left: "left \(path) \(fromVersion ?? "?"): " + names(plugins)
        case .restartNeeded: "\(path) \(failure ?? "changed"): restart plugboard to use the change"
        }
    }

    /// Whether the change took the library: it joined, or its new version serves.
    var tookLibrary: Bool { kind == .joined || kind == .reloaded }

    /// What a pass reports for a library it tried once more (`retry`, a reload of the file this change
    /// loaded, or a join) after this change, taking both tries' time. A retry that failed leaves what
    /// this change did as it was: this change stands, with the retry's failure among its warnings. One
    /// that succeeded is this change carried on: its kind and old version are this change's, its
    /// states and warnings both's. After a change that did not take the library, the retry is what happened.
    func followed(by retry: LibraryChange) -> LibraryChange {
        guard tookLibrary else {
            var retried = retry
            retried.nanoseconds = nanoseconds &+ retry.nanoseconds
            return retried
        }
        guard retry.tookLibrary else {
            var kept = self
            kept.warnings.append("tried again: \(retry.sentence)")
            return kept
        }
        var carried = retry
        carried.kind = kind
        carried.fromVersion = fromVersion
        carried.departed = departed.filter { !retry.plugins.contains($0) }
        carried.states = states + retry.states
        carried.warnings = warnings + retry.warnings
        carried.nanoseconds = nanoseconds &+ retry.nanoseconds
        return carried
    }

    private func names(_ ids: [PluginID]) -> String {
        ids.isEmpty ? "no plugin" : ids.map(\.rawValue).joined(separator: ", ")
    }

    /// The version of `plugins`: the one they share, or each plugin's `id version`; nil without plugins.
    static func version(of plugins: [PluginSummary]) -> String? {
        let versions = Set(plugins.map(\.descriptor.version))
        if versions.count == 1, let only = versions.first { return only }
        return plugins.isEmpty ? nil : plugins.map { "\($0.descriptor.id) \($0.descriptor.version)" }.joined(separator: ", ")
    }
}
