import CPlugboard
import Glibc
import PlugboardWorkerProtocol

/// Saved state (the memento pattern): each plugin of the saved-state concern gets back, before
/// will-finish-launching, the state it gave after the previous run's will-terminate. Both walk
/// the plugins in dispatch order (higher priority first, then id), one plugin at a time, each
/// call recorded as any call is (a crash or a hang in a worker is that plugin's failure).
extension PluginHost {
    /// Gives each plugin the state `store` holds for its id. Call before ``willFinishLaunching(options:)``.
    /// A missing file means no state, quietly; an unusable one (unreadable, corrupt, truncated,
    /// foreign) means no state and a warning naming the file and the cause; a plugin whose
    /// `restore_state` is NULL is not asked.
    public func restoreState(from store: SavedStateStore) -> SavedStateReport {
        let roster = prepared.savedState
        var entries: [SavedStateReport.Entry] = []
        for index in 0..<roster.count {
            let id = roster.ids[index]
            let file: SavedStateFile
            switch store.load(id) {
            case .none: continue
            case .unusable(let problem):
                entries.append(.init(plugin: id, outcome: .noState, bytes: nil, warning: "unusable state file \(problem)"))
                continue
            case .found(let found): file = found
            }
            let version = Array(file.pluginVersion.utf8)
            let answer = callSavedState(roster, index, "restore_state",
                                        remote: .restoreState(savedVersion: version, state: file.state)) { table, ctx in
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
        return SavedStateReport(operation: .restore, entries: entries + deniedEntries(roster))
    }

    /// Asks each plugin for its state and writes it to `store`, atomically, with the plugin's
    /// version and a checksum. Call after ``willTerminate()``. A plugin that saves nothing, breaks
    /// the rules (NULL data with a size, a state over 16 MiB), crashes or hangs keeps its previous
    /// file, with a warning; a plugin whose worker failed earlier is not asked (its file stays),
    /// also when the worker was restarted since.
    public func saveState(to store: SavedStateStore) -> SavedStateReport {
        let roster = prepared.savedState
        var versions: [PluginID: String] = [:]
        for entry in registry.entries { versions[entry.descriptor.id] = entry.descriptor.version }
        var entries: [SavedStateReport.Entry] = []
        for index in 0..<roster.count {
            let id = roster.ids[index]
            if let library = restartedLibrary(roster, index) {
                entries.append(.init(plugin: id, outcome: .kept, bytes: nil, warning:
                    "the worker of \(library) failed during the run and started over without its state; the previous state is kept"))
                continue
            }
            let answer = callSavedState(roster, index, "save_state", remote: .saveState) { table, ctx in
                SavedStateCall.save(table, ctx: ctx)
            } swift: { plugin in
                plugin.saveState().map(SavedStateCall.Answer.state) ?? .refused("saveState returned nil")
            }
            let state: [UInt8]
            switch answer {
            case nil: continue
            case .state(let bytes) where bytes.count > SavedStateFile.maximumStateSize:
                entries.append(.init(plugin: id, outcome: .kept, bytes: nil, warning:
                    "its state of \(bytes.count) bytes is over the limit of \(SavedStateFile.maximumStateSize); the previous state is kept"))
                continue
            case .state(let bytes): state = bytes
            case .restored:
                entries.append(.init(plugin: id, outcome: .kept, bytes: nil,
                                     warning: "it answered save_state without a state; the previous state is kept"))
                continue
            case .refused(let reason):
                entries.append(.init(plugin: id, outcome: .kept, bytes: nil, warning: "\(reason); the previous state is kept"))
                continue
            }
            let file = SavedStateFile(pluginID: id.rawValue, pluginVersion: versions[id] ?? "0",
                                      savedAtNanoseconds: Self.nanosecondsSince1970(), state: state)
            do {
                try store.save(file, for: id)
                entries.append(.init(plugin: id, outcome: .saved, bytes: state.count, warning: nil))
            } catch {
                entries.append(.init(plugin: id, outcome: .kept, bytes: nil,
                                     warning: "cannot write the state file '\(store.path(of: id))': \(error); the previous state is kept"))
            }
        }
        return SavedStateReport(operation: .save, entries: entries + deniedEntries(roster))
    }

    /// An entry for each plugin the policy denies saved state: never asked, its file left as it is.
    private func deniedEntries(_ roster: Roster<any SavedStatePlugin, pb_saved_state_t>) -> [SavedStateReport.Entry] {
        roster.denied.map { id in
            .init(plugin: id, outcome: .denied, bytes: nil,
                  warning: "the policy '\(accessPolicy?.source ?? "")' denies \(id) saved-state; its state file is left as it is")
        }
    }

    /// The library of participant `index` when it runs in a worker restarted after a failure
    /// during this host's life (`--restart`): its plugins started over, so their state now would
    /// replace a saved one with a fresh one. nil for any other participant.
    private func restartedLibrary(_ roster: Roster<any SavedStatePlugin, pb_saved_state_t>, _ index: Int) -> String? {
        guard case .worker(let plugin) = roster.participants[index] else { return nil }
        let library = plugin.connection.takeUnretainedValue().library
        return loaded.restarts(of: library) > 0 ? library : nil
    }

    /// `CLOCK_REALTIME` now, in nanoseconds since 1970: when a state is saved.
    private static func nanosecondsSince1970() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(0, now.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, now.tv_nsec))
    }

    /// Calls participant `index` of the saved-state roster: the one place that switches on how
    /// it is reached. nil: its slot is NULL. A worker that fails, or that speaks a protocol
    /// older than 1.4, answers `refused` with the sentence.
    private func callSavedState(_ roster: Roster<any SavedStatePlugin, pb_saved_state_t>, _ index: Int,
                                _ callback: StaticString, remote: WorkerEvent,
                                native: (pb_saved_state_t, UnsafeMutableRawPointer?) -> SavedStateCall.Answer?,
                                swift: (any SavedStatePlugin) -> SavedStateCall.Answer) -> SavedStateCall.Answer? {
        let record = calls
        record.begin(callback)
        defer { record.leave() }
        record.enter(roster.labels[index])
        switch roster.participants[index] {
        case .native(let table, let ctx, _):
            return native(table, ctx)
        case .swift(let conformance):
            return swift(roster.conformances[conformance])
        case .worker(let plugin):
            let needed = remote.code.introducedInMinor
            if let version = plugin.connection.takeUnretainedValue().peerVersion, version.minor < needed {
                return .refused("its worker speaks protocol \(version), and saved state needs 1.\(needed)")
            }
            switch callWorker(plugin, remote, callback: callback, id: roster.ids[index]) {
            case .success(.state(let bytes)): return .state(bytes)
            case .success(.returned): return .restored
            case .success(.refused(let reason)): return .refused(reason)
            case .success(.notTakingPart): return nil
            case .success(let other): return .refused("its worker answered \(other) to \(callback)")
            case .failure(let failure): return .refused(failure.message)
            }
        }
    }
}
