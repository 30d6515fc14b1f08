import CPlugboard
import Glibc
import PlugboardSystem
import PlugboardWorkerProtocol

/// Saved state (the memento pattern): each plugin of the saved-state concern gets back, before
/// will-finish-launching, the state it gave after the previous run's will-terminate. Both walk
/// the plugins in dispatch order (higher priority first, then id), one plugin at a time, each
/// call recorded as any call is (a crash or a hang in a worker is that plugin's failure).
///
/// Keeps the store the states were restored from, so a worker restarted later in the run gives
/// its plugins their state back (``restoreRestarted(_:)``).
final class SavedStateKeeper {
    private let registry: PluginRegistry
    private let callSite: PluginCallSite
    private let workers: WorkerSupervisor
    private let log: PluginHost.LogHandler
    /// Where ``restore(from:)`` took the states from, and where a library that leaves a running host saves them.
    private(set) var store: SavedStateStore?
    /// The plugins whose state file a restore found unusable: before a state of one is written, that
    /// file is kept aside (``SavedStateStore/setAside(_:)``), so a file this host could not use, from a
    /// newer host, damaged or unreadable for now, is not lost to the state of a plugin that started without it.
    private(set) var unusable: Set<PluginID> = []

    /// A keeper of `registry`'s plugins' states, calling them through `callSite` and, in workers, `workers`.
    init(registry: PluginRegistry, callSite: PluginCallSite, workers: WorkerSupervisor, log: @escaping PluginHost.LogHandler) {
        self.registry = registry
        self.callSite = callSite
        self.workers = workers
        self.log = log
    }

    /// Gives each plugin the state `store` holds for its id, and keeps `store`; see ``PluginHost/restoreState(from:)``.
    func restore(from store: SavedStateStore) -> SavedStateReport {
        self.store = store
        return restore(only: nil, from: store.load)
    }

    /// Takes over `plugins` as plugins whose state file a restore found unusable (a staged library's,
    /// restored by a keeper of its own, once the host switches to it).
    func noteUnusable(_ plugins: Set<PluginID>) {
        unusable.formUnion(plugins)
    }

    /// Gives the plugins of a restarted worker their saved state back (a plugin of the saved-state
    /// concern restarts without its memory otherwise, and would save that empty memory over the
    /// state of the previous run at will-terminate); each outcome is one log line. Nothing before
    /// a ``restore(from:)``. Once no operation calls plugins (before the next event): a worker that
    /// failed in a call, `restore_state` among them, is restored after that call, not inside it, so
    /// a state that makes its plugin fail again and again uses up the restarts one after another.
    func restoreRestarted(_ plugins: Set<PluginID>) {
        registry.afterCalls { [weak self] in self?.restoreNow(plugins) }
    }

    /// What ``restoreRestarted(_:)`` does, now.
    private func restoreNow(_ plugins: Set<PluginID>) {
        guard let store else { return }
        for entry in restore(only: plugins, from: store.load).entries {
            let what = switch entry.outcome {
            case .restored: "restored its saved state (\(entry.bytes ?? 0) bytes) after the restart"
            default: "restarted without its saved state: " + (entry.warning ?? entry.outcome.rawValue)
            }
            log(PluginLogRecord(source: HostIdentity.name, plugin: entry.plugin.rawValue,
                                level: entry.outcome == .restored ? .info : .warning, message: what))
        }
    }

    /// Restores the plugins `only` names (nil: every plugin of the concern), each from what `lookup`
    /// finds for its id (a store's file, or the state the previous version of a reloaded library gave).
    func restore(only: Set<PluginID>?, from lookup: (PluginID) -> SavedStateLookup) -> SavedStateReport {
        callSite.prepare(registry)
        registry.startCalls()
        defer { registry.endCalls() }
        let roster = registry.savedState
        let denied = only.map { only in roster.denied.filter(only.contains) } ?? roster.denied
        callSite.logDenials("restore_state", .savedState, denied)
        var entries: [SavedStateReport.Entry] = []
        for index in 0..<roster.count {
            let id = roster.ids[index]
            if let only, !only.contains(id) { continue }
            let file: SavedStateFile
            switch lookup(id) {
            case .none: continue
            case .unusable(let problem):
                unusable.insert(id)
                entries.append(.init(plugin: id, outcome: .noState, bytes: nil, warning: "unusable state file \(problem)"))
                continue
            case .found(let found): file = found
            }
            let version = Array(file.pluginVersion.utf8)
            let answer = callSavedState(roster, index, "restore_state",
                                        arguments: "saved_version: \(CallTracer.quoted(version)), bytes: \(file.state.count)",
                                        request: .restoreState(savedVersion: version, state: file.state)) { table, ctx in
                SavedStateCall.restore(table, ctx: ctx, savedVersion: version, state: file.state)
            } swift: { plugin in
                plugin.restoreState(file.state, savedVersion: file.pluginVersion) ? .restored : .refused("restoreState returned false")
            }
            switch answer {
            case nil: continue
            case .restored: entries.append(.init(plugin: id, outcome: .restored, bytes: file.state.count, warning: nil))
            case .state: entries.append(.init(plugin: id, outcome: .refused, bytes: nil, warning: "it answered restore_state with a state"))
            case .refused(let reason):
                entries.append(.init(plugin: id, outcome: .refused, bytes: nil, warning: "\(reason); it starts without state"))
            }
        }
        return SavedStateReport(operation: .restore, entries: entries + deniedEntries(denied))
    }

    /// Asks each plugin for its state and writes it to `store` as soon as it is given; see
    /// ``PluginHost/saveState(to:)``. One state is held at a time, and a save cut short (a second
    /// signal, which ends the process at once, or a kill while a later plugin takes its time) keeps
    /// every state written before.
    func save(to store: SavedStateStore) -> SavedStateReport {
        var written: [SavedStateReport.Entry] = []
        let refused = capture(only: nil) { file in written.append(self.write(file, to: store)) }
        return SavedStateReport(operation: .save, entries: written + refused.entries)
    }

    /// The states plugins gave (``capture(only:)``): one file per plugin that gave one, and the report's
    /// entries of those that did not.
    struct Captured {
        /// Each state given, with the plugin's id and version and the time, in dispatch order.
        var files: [SavedStateFile] = []
        /// The plugins that gave no state, and why (the previous state is kept).
        var entries: [SavedStateReport.Entry] = []
    }

    /// Writes the states of `captured` to `store`; a file that cannot be written keeps the previous one.
    func write(_ captured: Captured, to store: SavedStateStore) -> SavedStateReport {
        SavedStateReport(operation: .save, entries: captured.files.map { write($0, to: store) } + captured.entries)
    }

    /// Writes `file` to `store` (keeping aside first a file its plugin found unusable), and says how it went.
    private func write(_ file: SavedStateFile, to store: SavedStateStore) -> SavedStateReport.Entry {
        let id = PluginID(unchecked: file.pluginID)
        var setAside: String?
        do {
            if unusable.contains(id) {
                do {
                    setAside = "the unusable state file it started without was kept as '\(try store.setAside(id))'"
                } catch {
                    switch error.reason {
                    case .notFound: break  // Gone meanwhile: nothing to keep.
                    case .invalidName:
                        // An id so long that no name is left for the copy: the file is replaced, as before.
                        setAside = "the unusable state file it started without could not be kept aside (\(error)), and was replaced"
                    default: throw error
                    }
                }
                unusable.remove(id)
            }
            try store.save(file, for: id)
            return .init(plugin: id, outcome: .saved, bytes: file.state.count, warning: setAside)
        } catch {
            let kept = setAside.map { "; " + $0 } ?? "; the previous state is kept"
            return .init(plugin: id, outcome: .kept, bytes: nil,
                         warning: "cannot write the state file '\(store.path(of: id))': \(error)" + kept)
        }
    }

    /// Asks the plugins `only` names (nil: every plugin of the concern), in dispatch order, for their
    /// states; each state given goes to `each` at once when there is one, else into the result.
    func capture(only: Set<PluginID>?, each: ((SavedStateFile) -> Void)? = nil) -> Captured {
        callSite.prepare(registry)
        registry.startCalls()
        defer { registry.endCalls() }
        let roster = registry.savedState
        let denied = only.map { only in roster.denied.filter(only.contains) } ?? roster.denied
        callSite.logDenials("save_state", .savedState, denied)
        var versions: [PluginID: String] = [:]
        for entry in registry.entries { versions[entry.descriptor.id] = entry.descriptor.version }
        var captured = Captured()
        for index in 0..<roster.count {
            let id = roster.ids[index]
            if let only, !only.contains(id) { continue }
            let answer = callSavedState(roster, index, "save_state", arguments: "", request: .saveState) { table, ctx in
                SavedStateCall.save(table, ctx: ctx)
            } swift: { plugin in
                plugin.saveState().map(SavedStateCall.Answer.state) ?? .refused("saveState returned nil")
            }
            switch answer {
            case nil: continue
            case .state(let bytes) where bytes.count > SavedStateFile.maximumStateSize:
                captured.entries.append(.init(plugin: id, outcome: .kept, bytes: nil, warning:
                    "its state of \(bytes.count) bytes is over the limit of \(SavedStateFile.maximumStateSize); the previous state is kept"))
            case .state(let bytes):
                let file = SavedStateFile(pluginID: id.rawValue, pluginVersion: versions[id] ?? "0",
                                          savedAtNanoseconds: Self.nanosecondsSince1970(), state: bytes)
                if let each { each(file) } else { captured.files.append(file) }
            case .restored:
                captured.entries.append(.init(plugin: id, outcome: .kept, bytes: nil,
                                              warning: "it answered save_state without a state; the previous state is kept"))
            case .refused(let reason):
                captured.entries.append(.init(plugin: id, outcome: .kept, bytes: nil, warning: "\(reason); the previous state is kept"))
            }
        }
        captured.entries += deniedEntries(denied)
        return captured
    }

    /// An entry for each plugin the policy denies saved state: never asked, its file left as it is.
    private func deniedEntries(_ denied: [PluginID]) -> [SavedStateReport.Entry] {
        denied.map { id in
            .init(plugin: id, outcome: .denied, bytes: nil,
                  warning: "the policy '\(callSite.decorators.authorization?.policy.source ?? "")' denies \(id) saved-state; its state file is left as it is")
        }
    }

    /// `CLOCK_REALTIME` now, in nanoseconds since 1970: when a state is saved.
    private static func nanosecondsSince1970() -> UInt64 {
        UInt64(clamping: Duration.sinceEpoch.nanoseconds)
    }

    /// Calls participant `index` of the saved-state roster through the call site's per-call form:
    /// under ``PluginDecorator/threadConfinement`` what plugin threads sent meanwhile is delivered
    /// after the call, then ``PluginDecorator/tracing(_:)`` logs it with `arguments` (as the trace
    /// shows them) when the plugin is traced. nil: its slot is NULL.
    private func callSavedState(_ roster: Roster<pb_saved_state_t>, _ index: Int,
                                _ callback: StaticString, arguments: @autoclosure () -> String, request: CallRequest,
                                native: (pb_saved_state_t, UnsafeMutableRawPointer?) -> SavedStateCall.Answer?,
                                swift: (any SavedStatePlugin) -> SavedStateCall.Answer) -> SavedStateCall.Answer? {
        callSite.call(.savedState(callback, label: roster.participants[index].label), of: roster.ids[index],
                      traced: { "\(callback)(\(arguments()))" }, answer: { $0.map(CallTracer.answer) }) {
            reachSavedState(roster, index, callback, request: request, native: native, swift: swift)
        }.answer
    }

    /// Calls participant `index` of the saved-state roster, by how it is reached (as an event's
    /// participant is; saved state is no event, so its calls are its own). nil: its slot is NULL.
    /// A worker that fails, or that speaks a protocol older than 1.4, answers `refused` with the sentence.
    private func reachSavedState(_ roster: Roster<pb_saved_state_t>, _ index: Int,
                                 _ callback: StaticString, request: CallRequest,
                                 native: (pb_saved_state_t, UnsafeMutableRawPointer?) -> SavedStateCall.Answer?,
                                 swift: (any SavedStatePlugin) -> SavedStateCall.Answer) -> SavedStateCall.Answer? {
        switch roster.participants[index].participant {
        case .native(let table, let ctx, _):
            return native(table, ctx)
        case .swift(let conformance):
            return (roster.conformances[conformance] as? any SavedStatePlugin).map(swift)
        case .worker(let plugin):
            return plugin.call(request, id: roster.ids[index], workers).savedStateAnswer(callback)
        }
    }
}
