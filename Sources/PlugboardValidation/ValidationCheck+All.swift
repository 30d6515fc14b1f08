import Plugboard
import CPlugboard
import PlugboardWorkerProtocol

/// The validator's checks, in the order they run.
extension ValidationCheck {
    /// Every check.
    public static let all: [ValidationCheck] = [loads, exports, pluginIDs, functions, loadTime, secondLoad, edgeInputs, remoteNotification,
                                                serviceThreads, quietStdout, savedState, notifications]

    /// Load time above this is worth a warning.
    static let slowLoad = 100.0

    static let loads = ValidationCheck(
        name: "loads",
        description: "The library loads with RTLD_NOW in a worker: an exported plugboard_entry function, "
            + "a compatible ABI record and struct sizes, init and register succeed.") { subject in
        let loaded = subject.load()
        defer { loaded.host.shutdown() }
        let report = loaded.report
        if let failure = report.failure { return (loaded.failureStatus, failure.description) }
        if !report.warnings.isEmpty { return (.warn, report.warnings.joined(separator: "; ")) }
        return (.pass, "loaded ABI \(report.abi.map { "\($0.version)" } ?? "?") with \(report.plugins.count) plugin(s)")
    }

    static let exports = ValidationCheck(
        name: "exports",
        description: "plugboard_entry is the library's only exported symbol (read from the file, without loading it).")
    { subject in
        let names: [String]
        do throws(LoadFailure) {
            names = try WorkerHarness.exportedSymbols(of: subject.path)
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

    static let functions = ValidationCheck(
        name: "functions",
        description: "Every function a plugin declares is accepted: a valid name and signature, a function pointer, "
            + "declared once (a refused declaration is never called).") { subject in
        loadedOrSkipped(subject) { loaded in
            let plugins = loaded.report.plugins
            let refused = plugins.flatMap(\.functionWarnings)
            guard refused.isEmpty else { return (.fail, refused.joined(separator: "; ")) }
            let accepted = plugins.reduce(0) { $0 + $1.functions.count }
            guard accepted > 0 else { return (.skipped, "no plugin declares functions") }
            return (.pass, "\(accepted) function(s) declared and accepted")
        }
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
        description: "In one worker process, init, register_plugins and deinit run twice in a row: the library, "
            + "still mapped after deinit, loads again and registers the same plugins.") { subject in
        loadedOrSkipped(subject) { loaded in
            let host = loaded.host
            let first = loaded.report.plugins.map(\.descriptor.id.rawValue)
            if case .failure(let failure) = loaded.harness.unload(linger: .zero) {
                return deinitFailed(failure, which: "the first deinit")
            }
            let again = loaded.harness.loadAgain()
            if let failure = again.failure {
                return (loaded.failureStatus, "init after deinit, in the same process, failed: \(failure)")
            }
            let second = again.plugins.map(\.descriptor.id.rawValue)
            guard second == first else {
                return (.fail, "the second register_plugins registered " + second.joined(separator: ", ")
                    + " where the first registered " + first.joined(separator: ", "))
            }
            if case .failure(let failure) = loaded.harness.unload(linger: .zero) {
                return deinitFailed(failure, which: "the second deinit")
            }
            return (.pass, "init, register_plugins and deinit ran twice in one process")
        }
    }

    /// Edge inputs, each delivered to every plugin that takes part in the event: through the
    /// host's String events, and as bytes that are not UTF-8, which only the worker channel carries.
    static let edgeInputs = ValidationCheck(
        name: "edge-inputs",
        description: "Callbacks survive edge inputs: empty and 1 MiB URLs, text that is not UTF-8, empty, invalid "
            + "and deeply nested JSON, a zero-length device token.") { subject in
        loadedOrSkipped(subject) { loaded in
            let host = loaded.host
            let nested = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
            let longURL = "https://example.com/" + String(repeating: "a", count: 1 << 20)
            // A stray continuation byte, a truncated sequence, an encoded surrogate, a byte never in UTF-8.
            let notUTF8 = EventText(bytes: [0x80, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0xFF])
            let url = EventText(bytes: Array("https://example.com/".utf8) + notUTF8.bytes)
            let inputs: [(String, () -> [PluginFailure])] = [
                ("will_finish_launching with empty options", { host.willFinishLaunching(options: "").failures }),
                ("did_finish_launching with deeply nested options", { host.didFinishLaunching(options: nested).failures }),
                ("open_url with an empty URL", { host.open(url: "").failures }),
                ("open_url with a 1 MiB URL", { host.open(url: longURL).failures }),
                ("open_url with invalid JSON options", { host.open(url: "https://example.com", options: "{").failures }),
                ("open_url with deeply nested options", { host.open(url: "https://example.com", options: nested).failures }),
                ("open_url with a URL that is not UTF-8", {
                    loaded.harness.sendToEveryPlugin(.openURL(url: url, options: "{}")) }),
                ("open_url with options that are not UTF-8", {
                    loaded.harness.sendToEveryPlugin(.openURL(url: "https://example.com/", options: notUTF8)) }),
                ("continue_user_activity with an empty type and invalid JSON", {
                    host.continueUserActivity(type: "", userInfo: "not json").failures }),
                ("continue_user_activity with a type and user info that are not UTF-8", {
                    loaded.harness.sendToEveryPlugin(.continueUserActivity(type: notUTF8, userInfo: notUTF8)) }),
                ("did_register_for_remote_notifications with a zero-length token", {
                    host.didRegisterForRemoteNotifications(deviceToken: []).failures }),
            ]
            for (input, deliver) in inputs {
                if let failure = deliver().first { return (loaded.failureStatus, "\(input): \(failure.message)") }
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
                if let failure = report.failures.first { return (loaded.failureStatus, failure.message) }
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

    /// How long the service-threads check watches, after `deinit` returned, for a thread still calling the host.
    static let afterDeinitWatch = Duration.milliseconds(200)

    static let serviceThreads = ValidationCheck(
        name: "service-threads",
        description: "Host services called from the library's own threads are served through a launch, a URL and "
            + "termination, and no thread calls the host after deinit returned (watched for 200 ms).") { subject in
        loadedOrSkipped(subject) { loaded in
            let host = loaded.host
            if let failure = runAtWork(host).first { return (loaded.failureStatus, failure.message) }
            let census: ServiceCensus
            switch loaded.harness.unload(linger: afterDeinitWatch) {
            case .success(let counted): census = counted
            case .failure(let failure): return deinitFailed(failure, which: "deinit")
            }
            guard census.callsAfterDeinit == 0 else {
                return (.fail, "a thread of the library called the host \(census.callsAfterDeinit) time(s) within "
                    + "\(Int(afterDeinitWatch.milliseconds)) ms "
                    + "after deinit returned (each ignored): deinit must stop every thread that calls the host")
            }
            guard census.otherThreadCalls > 0 else { return (.pass, "no service call from another thread; none after deinit") }
            return (.pass, "\(census.otherThreadCalls) service call(s) from \(census.otherThreads) other thread(s) answered; "
                + "none after deinit")
        }
    }

    static let quietStdout = ValidationCheck(
        name: "quiet-stdout",
        description: "Plugin code writes nothing to standard output (it belongs to the host) through a launch, "
            + "a URL and termination.") { subject in
        loadedOrSkipped(subject) { loaded in
            let host = loaded.host
            if let failure = runAtWork(host).first { return (loaded.failureStatus, failure.message) }
            host.shutdown()
            if let line = loaded.standardOutput.first {
                return (.fail, "plugin code wrote \(loaded.standardOutput.count) line(s) to standard output, "
                    + "the first: \(line.debugDescription)")
            }
            return (.pass, "nothing written to standard output")
        }
    }

    /// Sends the events of a short run (a launch, a URL, becoming active, termination) for the checks
    /// that watch plugins at work; returns the failures.
    private static func runAtWork(_ host: PluginHost) -> [PluginFailure] {
        [host.willFinishLaunching(), host.didFinishLaunching(), host.open(url: "https://example.com"),
         host.didBecomeActive(), host.willTerminate()].flatMap(\.failures)
    }

    /// The result of a `deinit` (`which` one) whose worker failed.
    private static func deinitFailed(_ failure: WorkerHarness.DeinitFailure, which: String) -> (CheckResult.Status, String) {
        (ValidationSubject.status(of: failure.ending), which + ": " + failure.sentence)
    }

    /// Runs `body` on the library loaded in a new worker, or skips the check when it does not load.
    static func loadedOrSkipped(_ subject: ValidationSubject,
                                        _ body: (ValidationSubject.Loaded) -> (CheckResult.Status, String))
        -> (CheckResult.Status, String) {
        let loaded = subject.load()
        defer { loaded.host.shutdown() }
        guard loaded.report.status == .loaded else { return (.skipped, "the library does not load (see the loads check)") }
        return body(loaded)
    }
}
