import Plugboard

/// The `saved-state` check: the host's own save and restore (``PluginHost/saveState(to:)``,
/// ``PluginHost/restoreState(from:)``) on the scratch container's store.
enum SavedStateCheck {
    /// A state no plugin saved: bytes that are neither text nor any usual encoding.
    static let garbageState: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 0xA5) }

    /// The check.
    static let check = ValidationCheck(
        name: "saved-state",
        description: "Every plugin with a saved-state table saves within the call timeout (PB_OK, at most "
            + "PB_SAVED_STATE_MAX_SIZE bytes, no NULL data with a size), restores the state it saved and saves again, "
            + "and survives restoring an empty and a garbage state.") { subject in
        subject.withLoaded { loaded in
            let ids = loaded.report.plugins.filter { $0.concerns.contains(.savedState) }.map(\.descriptor.id)
            guard !ids.isEmpty else { return (.skipped, "no plugin takes part in saved state") }
            guard let store = loaded.harness.stateStore else { return (.skipped, "no scratch container could be made for the state files") }
            let host = loaded.host
            let steps: [(String, () -> SavedStateReport, SavedStateReport.Outcome?)] = [
                ("the first save", { host.saveState(to: store) }, .saved),
                ("restoring its own state", { host.restoreState(from: store) }, .restored),
                ("the save after that restore", { host.saveState(to: store) }, .saved),
                ("restoring an empty state", { restore([], of: ids, store, loaded) }, nil),
                ("restoring a garbage state", { restore(garbageState, of: ids, store, loaded) }, nil),
            ]
            for (step, run, expected) in steps {
                let report = run()
                // A worker that failed is the step's failure, whatever the entries say.
                if loaded.harness.workerEnding != nil {
                    let why = report.entries.compactMap(\.warning).first ?? "its worker failed"
                    return (loaded.failureStatus, "\(step): \(why)")
                }
                guard let expected else { continue }
                if let wrong = report.entries.first(where: { $0.outcome != expected }) {
                    return (.fail, "\(step): \(wrong.plugin): \(wrong.warning ?? wrong.outcome.rawValue)")
                }
            }
            return (.pass, "\(ids.count) plugin(s) saved, restored their state and saved again; "
                + "an empty and a garbage state did not crash them")
        }
    }

    /// Writes `state` into `store` as each plugin's saved state, then restores it (a refusal is fine).
    private static func restore(_ state: [UInt8], of ids: [PluginID], _ store: SavedStateStore,
                                _ loaded: ValidationSubject.Loaded) -> SavedStateReport {
        let versions = Dictionary(loaded.report.plugins.map { ($0.descriptor.id, $0.descriptor.version) }) { first, _ in first }
        for id in ids {
            // A file that cannot be written leaves the plugin without state: it is then not asked.
            try? store.save(SavedStateFile(pluginID: id.rawValue, pluginVersion: versions[id] ?? "0",
                                           savedAtNanoseconds: 0, state: state), for: id)
        }
        return loaded.host.restoreState(from: store)
    }
}
