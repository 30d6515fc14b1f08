import ArgumentParser
import Foundation
import Glibc
import Plugboard
import PlugboardFiles
import PlugboardSystem

/// `plugboard run`: load, launch, deliver events in order, terminate, and
/// report every event as it happens.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Load the plugins, launch, deliver events, terminate; report who did what.",
        discussion: """
            The container's Documents, Documents/Inbox, Library and tmp are made before the \
            plugins load (a plugin's init may use them); the built-in files plugin \
            (org.plugboard.files) makes them again at launch, vetoing it when it cannot, and \
            empties tmp at terminate; C plugins reach the container through the files host service.

            Order: will-finish-launching and did-finish-launching (a veto stops the run \
            after will-terminate), each --open-url, each line of --events, then will-terminate. \
            SIGINT or SIGTERM sends will-terminate to every plugin, then exits with 128+N: it is \
            acted on after loading, between events, and at once while events are awaited. A \
            second one ends the run at once (a callback that never returns cannot be waited \
            for). The handlers are installed again, and the signals unblocked, after loading \
            and before each event: a plugin's SIG_IGN, blocked mask or own handler is undone.

            The report goes to a private copy of standard output. The human report escapes \
            control characters (\\n, \\x1b). Relative paths are taken from the starting directory \
            before any plugin runs.

            Events are JSON objects, one per line, each field a parameter of the event \
            ("…" text, {} a JSON object, "hex digits" bytes, deadlineMs milliseconds, 5000 when \
            absent; an absent object is {}); will-terminate ends the script:
            \(ScriptLine.templates.map { "  " + $0 }.joined(separator: "\n"))
              {"event":"post","name":"com.example.network.status","payload":{"online":true}}
                (posts a notification on the bus as "plugboard" and delivers it at once)
            A malformed line, or one longer than 64 MiB, is reported with its line number and skipped; \
            the other lines run, and the run exits 65.

            With --isolation process (the default) each library runs in a worker process of \
            its own: what its plugins print comes back as lines attributed to the library, and \
            a crash, an exit, a broken channel, a worker that reads nothing sent to it for 5 s or a call past --call-timeout ends only that \
            library's part, named in one line ("com.example.x crashed with SIGSEGV in open_url \
            (/path/libx.so)"); the run then exits 5. With --isolation none plugins run in this \
            process: what they print goes to standard error; a crash in plugin code prints such \
            a line on standard error before the process dies, and so does plugin code that calls \
            exit; a call still running after --call-timeout seconds is named but cannot be stopped.

            With --json, every load report, log message, printed line, event report and input \
            error is one JSON object per line, with a "type" of load, policy, log, output, event, \
            post, state, note, input-error, joined, join-failed, skipped, reloaded, reload-failed, left, \
            restart-needed or exit.

            Live plugins: SIGHUP makes the run look at its plugin folders again between events, and \
            with --watch it does so by itself once a folder changed and stayed quiet for 100 ms; --watch \
            also keeps the run up after its events until SIGINT or SIGTERM (or the end of standard input \
            or a FIFO given to --events). A new library joins (loaded as at start; its plugins get their \
            saved state, will-finish-launching, did-finish-launching and the application's current state; \
            a veto then does not undo the launch). A changed library (another inode, size, modification \
            time, owner or permissions) is loaded in a new worker beside the old one; the old plugins' states go to the new ones, \
            which catch up the same way; then the run switches to them and the old worker gets deinit and \
            ends. If anything fails before the switch, the old version keeps serving. A removed library's \
            plugins save their state, get deinit and leave. A file still open for writing waits; one that \
            failed waits until it changes. Drop files with install(1) or write-then-rename, never by \
            writing over a loaded file. With --isolation none a library can join, but a change or removal \
            is reported once as needing a restart.

            Saved state: each plugin of the saved-state concern gets back, before \
            will-finish-launching, the state it gave after the previous run's will-terminate (one \
            file per plugin id in the container's Library/Plugboard State, with the plugin's version \
            and a checksum). A corrupt, truncated or foreign file means no state and a warning. \
            --reset-state removes every state file before loading (one that cannot be removed ends \
            run with exit code 1 before anything is loaded). `plugboard state` lists, shows and \
            removes them.

            --trace-file FILE writes the run as Chrome trace-event JSON (Perfetto, \
            chrome://tracing): a span per library load, per event and per plugin call, an \
            instant per worker failure, in microseconds since the run began; `plugboard blame \
            FILE` reads it back. --svg FILE draws the launch (loads and launch calls, one row per \
            plugin) as an SVG timeline. Both are written when the run ends, through a temporary \
            file renamed into place (a FIFO or a device is written in place); one that cannot be \
            written is a note and exit code 74.

            Decorators wrap every plugin, host-side, in this order (outermost first): \
            --policy FILE (authorization: a concern the policy denies a plugin is not delivered \
            to it, shown as "denied by policy" and logged; a denied host service call gets \
            PB_ERR_DENIED and a log line), --trace-plugin ID|all (a debug log line per call: \
            event callbacks, functions, notification deliveries, save_state and restore_state, \
            with arguments, answer, duration), --confine-threads (log lines and \
            notification completions from plugin threads are delivered on the dispatch thread, \
            after each event and while a notification is awaited). A policy file that cannot be \
            used is a usage error (64) naming the file, the key and the cause.

            \(ExitCodes.helpText)
            """)

    @OptionGroup var search: PluginSearchOptions
    @OptionGroup var trust: TrustOptions
    @OptionGroup var container: ContainerOptions

    @Option(name: .customLong("events"),
            help: ArgumentHelp("Read events as JSON lines from this file, or - for standard input.", valueName: "file"),
            transform: { $0 == "-" ? $0 : WorkingDirectory.absolute($0) })
    var eventsPath: String?

    @Option(name: .customLong("open-url"),
            help: ArgumentHelp("Open this URL after launch; repeatable, delivered before --events.", valueName: "url"))
    var urls: [String] = []

    @Option(name: .customLong("launch-options"),
            help: ArgumentHelp("A JSON object handed to the launch events.", valueName: "json"))
    var launchOptions = "{}"

    @OptionGroup var callTimeout: CallTimeoutOptions
    @OptionGroup var isolation: IsolationOptions
    @OptionGroup var sandbox: SandboxOptions
    @OptionGroup var restart: RestartOptions
    @OptionGroup var cache: ScanCacheOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var pictures: RunPictureOptions
    @OptionGroup var decorators: DecoratorOptions

    @Flag(name: .customLong("watch"),
          help: "Watch the plugin folders: libraries dropped in join, replaced ones reload, removed ones leave; run until SIGINT or SIGTERM.")
    var watch = false

    @Flag(name: .customLong("reset-state"),
          help: "Remove every plugin's saved state (the container's Library/Plugboard State/*.state) before loading: start clean.")
    var resetState = false

    func validate() throws {
        try sandbox.check(inProcess: isolation.mode == .none, policy: try decorators.policy.policy())
        if isolation.mode == .none, restart.restarts > 0 {
            throw ValidationError("--restart starts a library's worker again; with --isolation none there is no worker to restart")
        }
        if let eventsPath, eventsPath != "-" {
            do {
                try systemCall { access(eventsPath, R_OK) }
            } catch {
                throw ValidationError("cannot read the events file \(quoted: eventsPath): \(error)")
            }
            var status = stat()
            if stat(eventsPath, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                throw ValidationError("the events file \(quoted: eventsPath) is a directory")
            }
        }
        let inputs = [("the events file", eventsPath == "-" ? nil : eventsPath), ("the policy file", decorators.policy.path)]
        try pictures.refuseOverwriting(inputs: inputs.compactMap { what, path in path.map { (what, $0) } },
                                       pluginFolders: search.searchPath.directories.map(\.path))
        do {
            try JSONSyntax.check(launchOptions, top: .object, refusingDuplicateKeys: true)
        } catch {
            throw ValidationError("--launch-options must be a JSON object, got \(quoted: launchOptions): \(error)")
        }
    }

    func run() throws {
        let console = Console.takeStandardOutput()
        let json = output.json
        let log: PluginHost.LogHandler = { record in
            json ? console.jsonLine(RunLine.log(record)) : console.line(HumanFormat.log(record))
        }
        // A failure to make the container's directories is reported once, by the files plugin:
        // it tries again at launch and vetoes the launch if it cannot.
        let facade = try container.facade().facade
        FaultReporter.install()
        let host = PluginHost(fileFacade: facade, callTimeout: callTimeout.timeout, isolation: try isolation.isolation(),
                              sandbox: sandbox.mode, restarts: restart.restarts, decorators: try decorators.decorators(), logHandler: log) { line in
            json ? console.jsonLine(RunLine.output(line)) : console.line(HumanFormat.output(line))
        }
        try host.register(FilesPlugin(facade: facade, log: log))
        host.scanCache = try cache.open()
        host.retryCrashed = cache.retryFailed
        host.reusesScanCache = !cache.noCache
        let recording = pictures.recording()
        let session = RunSession(host: host, console: console, json: json, recording: recording,
                                 states: SavedStateStore(facade: facade))
        let signals = SignalWatcher.install(report: console.descriptor, farewell: session.farewell(after:))
        if let signals { host.interruption = { signals.arrived() } }
        var code = session.perform(self, signals: signals)
        host.scanCache?.save()
        code = session.exitCode(code, failuresAtShutdown: host.shutdown())
        if let recording {
            let failures = pictures.write(recording, standardOutput: console.descriptor)
            failures.forEach(session.note)
            if !failures.isEmpty { code = ExitCodes.reportLost }
        }
        session.finish(code)
        if code != ExitCodes.success { throw code }
    }
}
