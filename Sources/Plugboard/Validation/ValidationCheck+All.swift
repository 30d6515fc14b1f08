import CPlugboard

/// The validator's checks, in the order they run.
extension ValidationCheck {
    /// Every check.
    public static let all: [ValidationCheck] = [loads, exports, pluginIDs, loadTime, secondLoad, edgeInputs, remoteNotification, quietStdout]

    /// Load time above this is worth a warning.
    static let slowLoad = 100.0

    static let loads = ValidationCheck(
        name: "loads",
        description: "The library loads with RTLD_NOW in a worker: an exported plugboard_entry function, "
            + "a compatible ABI record and struct sizes, init and register succeed.") { subject in
        let loaded = subject.load()
        defer { loaded.host.shutdown() }
        let report = loaded.report
        if let failure = report.failure { return (ValidationSubject.status(of: failure.message), failure.description) }
        if !report.warnings.isEmpty { return (.warn, report.warnings.joined(separator: "; ")) }
        return (.pass, "loaded ABI \(report.abi.map { "\($0.version)" } ?? "?") with \(report.plugins.count) plugin(s)")
    }

    static let exports = ValidationCheck(
        name: "exports",
        description: "plugboard_entry is the library's only exported symbol (read from the file, without loading it).")
    { subject in
        let names: [String]
        do throws(LoadFailure) {
            names = try LibraryExports.names(in: subject.path)
        } catch {
            return (.skipped, "the dynamic symbols cannot be read: \(error)")
        }
        let others = names.filter { $0 != PB_ENTRY_SYMBOL }
        guard names.contains(PB_ENTRY_SYMBOL) else { return (.fail, "plugboard_entry is not exported") }
        guard others.isEmpty else {
            return (.warn, "\(others.count) symbol(s) besides plugboard_entry are exported (build with -fvisibility=hidden): "
                + others.prefix(5).joined(separator: ", ") + (others.count > 5 ? ", …" : ""))
        }
        return (.pass, "plugboard_entry is the only export")
    }

    static let pluginIDs = ValidationCheck(
        name: "plugin-ids",
        description: "Every plugin has a reverse-DNS id, unique in the library, and is registered.") { subject in
        let loaded = subject.load()
        defer { loaded.host.shutdown() }
        let report = loaded.report
        if !report.refused.isEmpty {
            return (.fail, report.refused.map { "\($0.id.isEmpty ? "(no id)" : $0.id): \($0.failure.message)" }
                .joined(separator: "; "))
        }
        guard report.status == .loaded else { return (.skipped, "the library does not load (see the loads check)") }
        return (.pass, report.plugins.map(\.descriptor.id.rawValue).joined(separator: ", "))
    }

    static let loadTime = ValidationCheck(
        name: "load-time",
        description: "Loading (dlopen, entry, init, register) takes at most 100 ms.") { subject in
        loadedOrSkipped(subject) { loaded in
            let took = "loading took \(Int(loaded.milliseconds.rounded())) ms"
            return loaded.milliseconds > slowLoad ? (.warn, took + ", more than 100 ms") : (.pass, took)
        }
    }

    static let secondLoad = ValidationCheck(
        name: "second-load",
        description: "After init and deinit, the library loads again (init after deinit) in a new worker.") { subject in
        loadedOrSkipped(subject) { first in
            first.host.shutdown()
            if let error = first.hostWarnings.first(where: { $0.level == .error })?.message {
                return (ValidationSubject.status(of: error), "deinit: " + error)
            }
            let second = subject.load()
            defer { second.host.shutdown() }
            if let failure = second.report.failure {
                return (ValidationSubject.status(of: failure.message), "the second load failed: \(failure)")
            }
            return (.pass, "loaded, shut down and loaded again")
        }
    }

    /// Edge inputs, each delivered to every plugin that takes part in the event.
    static let edgeInputs = ValidationCheck(
        name: "edge-inputs",
        description: "Callbacks survive edge inputs: empty and 1 MiB URLs, empty, invalid and deeply nested JSON, "
            + "a zero-length device token.") { subject in
        loadedOrSkipped(subject) { loaded in
            let host = loaded.host
            let nested = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
            let longURL = "https://example.com/" + String(repeating: "a", count: 1 << 20)
            let inputs: [(String, () -> EventReport)] = [
                ("will_finish_launching with empty options", { host.willFinishLaunching(options: "") }),
                ("did_finish_launching with deeply nested options", { host.didFinishLaunching(options: nested) }),
                ("open_url with an empty URL", { host.open(url: "") }),
                ("open_url with a 1 MiB URL", { host.open(url: longURL) }),
                ("open_url with invalid JSON options", { host.open(url: "https://example.com", options: "{") }),
                ("open_url with deeply nested options", { host.open(url: "https://example.com", options: nested) }),
                ("continue_user_activity with an empty type and invalid JSON", {
                    host.continueUserActivity(type: "", userInfo: "not json") }),
                ("did_register_for_remote_notifications with a zero-length token", {
                    host.didRegisterForRemoteNotifications(deviceToken: []) }),
            ]
            for (input, deliver) in inputs {
                if let failure = deliver().failures.first {
                    return (ValidationSubject.status(of: failure.message), "\(input): \(failure.message)")
                }
            }
            return (.pass, "\(inputs.count) edge inputs answered")
        }
    }

    /// How long the remote-notification check waits for the completions.
    static let notificationDeadline = Duration.seconds(2)

    static let remoteNotification = ValidationCheck(
        name: "remote-notification",
        description: "Every plugin that takes part in remote notifications answers the completion exactly once, "
            + "within a 2 s deadline, twice in a row.") { subject in
        loadedOrSkipped(subject) { loaded in
            let takingPart = loaded.report.plugins.filter { $0.concerns.contains(.remoteNotifications) }
            guard !takingPart.isEmpty else { return (.skipped, "no plugin takes part in remote notifications") }
            // The second notification's round trip also brings in a second answer to the first.
            for _ in 1...2 {
                let report = loaded.host.didReceiveRemoteNotification(userInfo: "{}", deadline: notificationDeadline)
                if let failure = report.failures.first { return (ValidationSubject.status(of: failure.message), failure.message) }
                let silent = report.calls.filter { $0.answer == .timedOut }.map(\.plugin.rawValue)
                if !silent.isEmpty {
                    return (.fail, silent.joined(separator: ", ") + " did not answer the completion within "
                        + "\(notificationDeadline.components.seconds) s")
                }
                if let note = report.notes.first { return (.fail, note) }
            }
            if let warning = loaded.hostWarnings.first(where: { $0.plugin != nil }) {
                return (.fail, "\(warning.plugin ?? "") \(warning.message)")
            }
            return (.pass, "\(takingPart.count) plugin(s) answered each notification once within the deadline")
        }
    }

    static let quietStdout = ValidationCheck(
        name: "quiet-stdout",
        description: "Plugin code writes nothing to standard output (it belongs to the host) through a launch, "
            + "a URL and termination.") { subject in
        loadedOrSkipped(subject) { loaded in
            let host = loaded.host
            let reports = [host.willFinishLaunching(), host.didFinishLaunching(), host.open(url: "https://example.com"),
                           host.didBecomeActive(), host.willTerminate()]
            host.shutdown()
            if let failure = reports.lazy.flatMap(\.failures).first {
                return (ValidationSubject.status(of: failure.message), failure.message)
            }
            if let line = loaded.standardOutput.first {
                return (.fail, "plugin code wrote \(loaded.standardOutput.count) line(s) to standard output, "
                    + "the first: \(line.debugDescription)")
            }
            return (.pass, "nothing written to standard output")
        }
    }

    /// Runs `body` on the library loaded in a new worker, or skips the check when it does not load.
    private static func loadedOrSkipped(_ subject: ValidationSubject,
                                        _ body: (ValidationSubject.Loaded) -> (CheckResult.Status, String))
        -> (CheckResult.Status, String) {
        let loaded = subject.load()
        defer { loaded.host.shutdown() }
        guard loaded.report.status == .loaded else { return (.skipped, "the library does not load (see the loads check)") }
        return body(loaded)
    }
}
