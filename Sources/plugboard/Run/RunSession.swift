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
    /// What went wrong along the run without stopping it, which its exit code says.
    private let mishaps = Mishaps()

    /// Flags the run's steps set; a class, as the session's steps do not mutate it.
    private final class Mishaps {
        /// A library that joined or changed during the run failed to load: the run exits 4, as
        /// for one that failed at the start.
        var liveLoadFailed = false
        /// An events line was skipped (malformed, not UTF-8, too long): the run exits 65.
        var lineSkipped = false
    }

    /// Runs load → launch → URLs → events → terminate and returns the exit code (before
    /// ``exitCode(_:failuresAtShutdown:)`` counts the workers that failed).
    func perform(_ command: RunCommand, signals: SignalWatcher?) -> ExitCode {
        if command.resetState, !resetState() { return ExitCodes.failure }
        let searchPath = command.search.searchPath
        // Watching starts before loading: a file dropped meanwhile is not missed.
        let watcher = command.watch ? watch(searchPath) : nil
        let loadStart = MonotonicClock.now()
        let reports = host.loadPlugins(from: searchPath, trust: command.trust.policy)
        recording?.recordLoading(reports, start: loadStart) { host.workerEnding(of: $0) != nil }
        let denials = PolicyDenials(host.accessPolicy, plugins: host.plugins)
        for report in reports {
            json ? console.jsonLine(RunLine.load(report)) : console.lines(HumanFormat.load(report, denials: denials))
        }
        if json, let denials { console.jsonLine(RunLine.policy(denials)) }
        let loadedIDs = Set(host.plugins.map(\.descriptor.id.rawValue))
        for id in command.decorators.traced where id != "all" && !loadedIDs.contains(id) {
            note("--trace-plugin \(id): no plugin loaded has this id; nothing is traced for it")
        }
        if let policy = host.accessPolicy {
            for entry in policy.unmatched(loaded: Set(host.plugins.map(\.descriptor.id)), tried: reports.map(\.path)) {
                note("the policy file \(quoted: policy.source): \(entry) names nothing loaded now; it applies to nothing until it does")
            }
        }
        if !json { console.line(HumanFormat.tally(reports)) }
        if !command.watch && !host.plugins.contains(where: { $0.source != .builtIn })
            && searchPath.directories.contains(where: \.isExplicit) {
            // A signal during loading stopped the loads: the run ends for it. (With plugins loaded,
            // the first launch's check ends it, once their states are restored.)
            if let signal = signals?.pending() { return terminate(signal: signal) }
            note("no plugin could be loaded from " + searchPath.directories.map(\.path).joined(separator: ", "))
            return ExitCodes.noPluginLoaded
        }
        // A library asked for that failed, at the start or when it joined or changed during the run,
        // makes the run exit 4, after the others ran to the end; else a skipped events line, 65.
        let asked = searchPath.directories.contains(where: \.isExplicit)
        var codeWhenDone: ExitCode {
            if asked && (reports.contains { $0.status == .failed } || mishaps.liveLoadFailed) { return ExitCodes.libraryFailed }
            return mishaps.lineSkipped ? ExitCodes.eventsLineSkipped : ExitCodes.success
        }

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
        let changes = LiveChanges(searchPath: searchPath, trust: command.trust.policy, watcher: watcher)
        // With --watch the run waits for changes after its events, unless they came from a stream
        // (standard input, a FIFO) that ended, or ended with will-terminate.
        var waits = command.watch
        if let path = command.eventsPath {
            let descriptor: Int32
            do {
                // Without blocking: a FIFO with no writer yet would hold `open` past a signal. The
                // reader polls, so the events are read as they come all the same.
                descriptor = path == "-" ? STDIN_FILENO : try systemCall { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
            } catch {
                note("cannot open the events file \(quoted: path): \(error)")
                terminateAndSave()
                return ExitCodes.failure
            }
            defer { if descriptor != STDIN_FILENO { close(descriptor) } }
            switch follow(descriptor, changes, signals: signals) {
            case .finished: waits = waits && path != "-" && Self.isRegularFile(descriptor)
            case .terminated: waits = false
            case .signal(let signal): return terminate(signal: signal)
            case .unreadable(let message):
                note(message)
                terminateAndSave()
                return ExitCodes.failure
            }
        }
        if waits, case .signal(let signal) = follow(nil, changes, signals: signals) { return terminate(signal: signal) }
        if let signal = signals?.pending() { return terminate(signal: signal) }
        terminateAndSave()
        return codeWhenDone
    }

    /// `code`, or 5 when it says the run went to its end (0; 4, a library failed to load; 65, an events
    /// line was skipped) and a plugin's worker failed during the run or at shutdown, while its library's `deinit` ran.
    func exitCode(_ code: ExitCode, failuresAtShutdown: [String]) -> ExitCode {
        let workerFailed = !host.failures.isEmpty || !failuresAtShutdown.isEmpty
        let wentToItsEnd = [ExitCodes.success, ExitCodes.libraryFailed, ExitCodes.eventsLineSkipped].contains(code)
        return workerFailed && wentToItsEnd ? ExitCodes.pluginFailed : code
    }

    /// The last line: the exit code and why.
    func finish(_ code: ExitCode) {
        if json { console.jsonLine(RunLine.exit(code: Int(code.rawValue))) }
    }

    private enum EventsOutcome {
        /// The stream ended.
        case finished
        /// A will-terminate line ended the script.
        case terminated
        case signal(Int32)
        case unreadable(String)
    }

    /// Where the run looks for live changes, and what tells it to.
    struct LiveChanges {
        let searchPath: PluginSearchPath
        let trust: PluginTrust
        /// Nil without --watch: SIGHUP alone applies changes then.
        let watcher: PluginFolderWatcher?
    }

    /// Delivers the events of the stream `descriptor` (nil: none, only waits) as they come, and applies
    /// the plugin folders' changes between them on SIGHUP or, when watching, once the folders are quiet.
    private func follow(_ descriptor: Int32?, _ changes: LiveChanges, signals: SignalWatcher?) -> EventsOutcome {
        var reader = EventLineReader(descriptor: descriptor, signals: signals, watcher: changes.watcher)
        while true {
            switch reader.next() {
            case .end: return .finished
            case .signal(let signal): return .signal(signal)
            case .failure(let message): return .unreadable(message)
            case .overlong(let number):
                inputError(line: number, "longer than \(EventLineReader.longestLine >> 20) MiB, the longest line read")
            case .notUTF8(let number, let byte, let position):
                inputError(line: number, "not UTF-8: byte 0x\(String(byte, radix: 16, uppercase: true)) at byte \(position)")
            case .foldersChanged: apply(changes)
            case .line(let number, let text):
                if text.allSatisfy(\.isWhitespace) { continue }
                do throws(ScriptError) {
                    switch try ScriptLine(jsonLine: text) {
                    case .event(let event):
                        if event == .willTerminate { return .terminated }
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

    /// Applies what changed in the plugin folders, and prints and records each change.
    private func apply(_ changes: LiveChanges) {
        for change in host.applyChanges(in: changes.searchPath, trust: changes.trust) {
            if change.kind == .joinFailed || change.kind == .reloadFailed { mishaps.liveLoadFailed = true }
            recording?.recordChange(change, end: MonotonicClock.now())
            json ? console.jsonLine(RunLine.change(change)) : console.lines(HumanFormat.change(change))
        }
    }

    /// A watcher of the folders of `searchPath`, with a note naming them; nil, with a note saying why,
    /// when the folders cannot be watched (SIGHUP still applies changes).
    private func watch(_ searchPath: PluginSearchPath) -> PluginFolderWatcher? {
        do {
            let watcher = try PluginFolderWatcher(searchPath)
            let folders = watcher.folders.isEmpty ? "no folder (none exists)" : watcher.folders.joined(separator: ", ")
            note("--watch: watching \(folders) for libraries that join, change or leave")
            return watcher
        } catch {
            note("--watch: cannot watch the plugin folders: \(error); send SIGHUP to apply changes")
            return nil
        }
    }

    /// Whether `descriptor` is a regular file (whose end is not the end of a stream of events).
    private static func isRegularFile(_ descriptor: Int32) -> Bool {
        var status = stat()
        return fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
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
            let result = try states.removeAll()
            guard result.failures.isEmpty else {
                note("--reset-state: removed \(result.removed.count) state file(s) from \(quoted: folder), but not every one: "
                     + result.failures.map(\.description).joined(separator: "; ") + "; nothing was run")
                return false
            }
            note("--reset-state: removed \(result.removed.count) state file(s) from \(quoted: folder)")
            return true
        } catch {
            note("--reset-state: cannot remove the saved states: \(error); nothing was run")
            return false
        }
    }

    /// Prints what restoring or saving the states did: a `state` object with `--json`.
    private func show(_ report: SavedStateReport) {
        guard !report.entries.isEmpty else { return }
        json ? console.jsonLine(RunLine.state(report)) : console.lines(HumanFormat.savedState(report))
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
        json ? console.jsonLine(RunLine.event(report)) : console.lines(HumanFormat.event(report, detail: detail))
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
            : console.lines(HumanFormat.post(name, report))
    }

    /// Prints a `note`: one line, or a `note` object with `--json`.
    func note(_ message: String) {
        json ? console.jsonLine(RunLine.note(message)) : console.line("plugboard: " + message)
    }

    /// Reports an events line that is skipped, and why; the run then exits 65.
    private func inputError(line: Int, _ message: String) {
        mishaps.lineSkipped = true
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
