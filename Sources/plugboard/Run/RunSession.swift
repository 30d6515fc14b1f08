import ArgumentParser
import Foundation
import Glibc
import Plugboard
import PlugboardSystem

/// The steps of one `plugboard run`, printing each report as it happens.
struct RunSession {
    let host: PluginHost
    let console: Console
    let json: Bool
    /// The trace being recorded, when `--trace-file` or `--svg` asks for one.
    let recording: RunRecording?
    /// Where the plugins' saved states live (the container's `Library/Plugboard State`).
    let states: SavedStateStore

    /// Runs load → launch → URLs → events → terminate and returns the exit code (before
    /// ``exitCode(_:failuresAtShutdown:)`` counts the workers that failed).
    func perform(_ command: RunCommand, signals: SignalWatcher?) -> ExitCode {
        if command.resetState, !resetState() { return ExitCodes.failure }
        let searchPath = command.search.searchPath
        let loadStart = MonotonicClock.now()
        let reports = host.loadPlugins(from: searchPath, trust: command.trust.policy)
        recording?.recordLoading(reports, start: loadStart) { host.workerEnding(of: $0) != nil }
        let denials = PolicyDenials(host.accessPolicy, plugins: host.plugins)
        for report in reports {
            json ? console.jsonLine(RunLine.load(report)) : HumanFormat.load(report, denials: denials).forEach(console.line)
        }
        if json, let denials { console.jsonLine(RunLine.policy(denials)) }
        let loadedIDs = Set(host.plugins.map(\.descriptor.id.rawValue))
        for id in command.decorators.traced where id != "all" && !loadedIDs.contains(id) {
            note("--trace-plugin \(id): no plugin loaded has this id; nothing is traced for it")
        }
        if !json { console.line(HumanFormat.tally(reports)) }
        if !host.plugins.contains(where: { $0.source != .builtIn }) && searchPath.directories.contains(where: \.isExplicit) {
            note("no plugin could be loaded from " + searchPath.directories.map(\.path).joined(separator: ", "))
            return ExitCodes.noPluginLoaded
        }
        // A library asked for that failed makes the run exit 4, after the others ran to the end.
        let codeWhenDone = searchPath.directories.contains(where: \.isExplicit) && reports.contains { $0.status == .failed }
            ? ExitCodes.libraryFailed : ExitCodes.success

        show(host.restoreState(from: states))
        for launch in [host.willFinishLaunching, host.didFinishLaunching] {
            if let signal = signals?.pending() { return terminate(signal: signal) }
            let report = play(nil) { launch(command.launchOptions) }
            if report.accepted == false {
                terminateAndSave()
                return ExitCodes.launchVetoed
            }
        }
        for url in command.urls {
            if let signal = signals?.pending() { return terminate(signal: signal) }
            play(url) { host.open(url: url) }
        }
        if let path = command.eventsPath {
            switch deliverEvents(from: path, signals: signals) {
            case .finished: break
            case .signal(let signal): return terminate(signal: signal)
            case .unreadable(let message):
                note(message)
                terminateAndSave()
                return ExitCodes.failure
            }
        }
        if let signal = signals?.pending() { return terminate(signal: signal) }
        terminateAndSave()
        return codeWhenDone
    }

    /// `code`, or 5 when it says the run went to its end (0, or 4: a library failed to load) and a
    /// plugin's worker failed during the run or at shutdown, while its library's `deinit` ran.
    func exitCode(_ code: ExitCode, failuresAtShutdown: [String]) -> ExitCode {
        let workerFailed = !host.failures.isEmpty || !failuresAtShutdown.isEmpty
        return workerFailed && (code == ExitCodes.success || code == ExitCodes.libraryFailed) ? ExitCodes.pluginFailed : code
    }

    /// The last line: the exit code and why.
    func finish(_ code: ExitCode) {
        if json { console.jsonLine(RunLine.exit(code: Int(code.rawValue))) }
    }

    private enum EventsOutcome {
        case finished
        case signal(Int32)
        case unreadable(String)
    }

    private func deliverEvents(from path: String, signals: SignalWatcher?) -> EventsOutcome {
        let descriptor: Int32
        do {
            descriptor = path == "-" ? STDIN_FILENO : try systemCall { open(path, O_RDONLY | O_CLOEXEC) }
        } catch {
            return .unreadable("cannot open the events file '\(path)': \(error)")
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var reader = EventLineReader(descriptor: descriptor, signals: signals)
        while true {
            switch reader.next() {
            case .end: return .finished
            case .signal(let signal): return .signal(signal)
            case .failure(let message): return .unreadable(message)
            case .line(let number, let text):
                if text.allSatisfy(\.isWhitespace) { continue }
                do throws(ScriptError) {
                    switch try ScriptLine(jsonLine: text) {
                    case .event(let event):
                        if event == .willTerminate { return .finished }
                        play(detail(event)) { host.dispatch(event) }
                    case .post(let name, let payload):
                        post(name, payload: payload)
                    }
                } catch {
                    inputError(line: number, error.description)
                }
            }
        }
    }

    private func terminate(signal: Int32) -> ExitCode {
        note("received \(Self.name(of: signal)): terminating")
        terminateAndSave()
        return ExitCode(128 + signal)
    }

    /// Sends will-terminate, then saves every plugin's state (after the callbacks: a plugin can
    /// finish its work in will-terminate and then be asked).
    private func terminateAndSave() {
        play(nil) { host.willTerminate() }
        show(host.saveState(to: states))
    }

    /// Removes every saved state before loading (`--reset-state`) and says so; false (said too)
    /// when one cannot be removed: the run does not start with a state it was asked to drop.
    private func resetState() -> Bool {
        let folder = states.facade.container.path(of: .library) + "/" + SavedStateStore.folder
        do {
            let removed = try states.removeAll()
            note("--reset-state: removed \(removed.count) state file(s) from '\(folder)'")
            return true
        } catch {
            note("--reset-state: cannot remove the saved states: \(error); nothing was run")
            return false
        }
    }

    /// Prints what restoring or saving the states did: a `state` object with `--json`.
    private func show(_ report: SavedStateReport) {
        guard !report.entries.isEmpty else { return }
        json ? console.jsonLine(RunLine.state(report)) : HumanFormat.savedState(report).forEach(console.line)
    }

    /// What a second signal prints as it ends the process at once: a note, and with
    /// `--json` the exit line (the signal handler writes it; see ``SignalWatcher``).
    func farewell(after signal: Int32) -> String {
        let message = "received \(Self.name(of: signal)) again: exiting at once, without waiting for the plugins"
        guard json else { return "plugboard: \(message)\n" }
        return JSONOutput.encode(RunLine.note(message), pretty: false) + "\n"
            + JSONOutput.encode(RunLine.exit(code: Int(128 + signal)), pretty: false) + "\n"
    }

    private static func name(of signal: Int32) -> String {
        signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)"
    }

    /// Delivers one event with `deliver`, records it and prints its report.
    @discardableResult
    private func play(_ detail: String?, _ deliver: () -> EventReport) -> EventReport {
        let start = MonotonicClock.now()
        let report = deliver()
        recording?.recordEvent(report, detail: detail, start: start, end: MonotonicClock.now())
        json ? console.jsonLine(RunLine.event(report)) : HumanFormat.event(report, detail: detail).forEach(console.line)
        return report
    }

    /// Posts a script's notification (checked when its line was read) as the host, delivers
    /// it at once, records the deliveries and prints them.
    private func post(_ name: String, payload: String) {
        let start = MonotonicClock.now()
        do {
            try host.post(name, payload: payload)
        } catch {
            note(error.description)
        }
        let report = host.deliverNotifications()
        recording?.recordPost(name, report, start: start, end: MonotonicClock.now())
        json ? console.jsonLine(RunLine.post(name: name, payload: payload, notifications: report))
            : HumanFormat.post(name, report).forEach(console.line)
    }

    /// Prints a `note`: one line, or a `note` object with `--json`.
    func note(_ message: String) {
        json ? console.jsonLine(RunLine.note(message)) : console.line("plugboard: " + message)
    }

    private func inputError(line: Int, _ message: String) {
        if json {
            console.jsonLine(RunLine.inputError(line: line, message: message))
        } else {
            console.line("events line \(line): \(message); skipped")
        }
    }

    /// What the report shows beside an event's name: its first text argument (a URL, an
    /// activity type, an error), when its first parameter is text.
    private func detail(_ event: LifecycleEvent) -> String? {
        guard event.kind.parameters.first?.form == .text, case .text(let text)? = event.arguments.first else { return nil }
        return text.string
    }
}
