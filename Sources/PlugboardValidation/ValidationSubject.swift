import Plugboard
import Synchronization

/// The library a validator checks, and how each check loads it: in a fresh
/// worker, so plugin code that crashes ends only that check.
struct ValidationSubject: Sendable {
    /// The library file.
    let path: String
    /// The `plugboard-worker` executable.
    let worker: String
    /// How long one plugin call may run before its worker is stopped.
    let callTimeout: Duration
    /// The trust rule the library loads under.
    let trust: PluginTrust

    /// A library loaded for one check in a worker harness (with a scratch container for its files
    /// service), with what its plugins printed and the host warned.
    final class Loaded {
        /// The library in its worker.
        let harness: WorkerHarness
        private let seen: Seen

        /// What the handlers receive, from any thread.
        private final class Seen: Sendable {
            let output = Mutex<[PluginOutputLine]>([])
            let hostWarnings = Mutex<[PluginLogRecord]>([])
        }

        fileprivate init(_ subject: ValidationSubject) {
            let seen = Seen()
            self.seen = seen
            harness = WorkerHarness(library: subject.path, worker: subject.worker, callTimeout: subject.callTimeout, trust: subject.trust,
                                    logHandler: { record in
                                        guard record.level >= .warning, record.source == HostIdentity.name else { return }
                                        seen.hostWarnings.withLock { $0.append(record) }
                                    },
                                    outputHandler: { line in seen.output.withLock { $0.append(line) } })
        }

        /// The host that loaded the library.
        var host: PluginHost { harness.host }
        /// The load's report.
        var report: LoadReport { harness.report }
        /// How long the load took, in milliseconds.
        var milliseconds: Double { harness.loadDuration.milliseconds }

        /// The status of a failure seen so far: `crashed` when plugin code ended the library's
        /// worker (a signal or an exit), `fail` otherwise (see ``status(of:)``).
        var failureStatus: CheckResult.Status {
            harness.workerEnding.map(ValidationSubject.status(of:)) ?? .fail
        }

        /// The lines plugin code wrote to standard output so far.
        var standardOutput: [String] { seen.output.withLock { $0.filter { $0.stream == .stdout }.map(\.text) } }
        /// The warnings and errors the host logged so far (a worker that failed in `deinit`,
        /// a completion answered twice, say).
        var hostWarnings: [PluginLogRecord] { seen.hostWarnings.withLock { $0 } }

        /// What ``runAtWork()`` sends, as descriptions name it.
        static let work = "a launch, a URL and termination"

        /// Sends the events of a short run (a launch, a URL, becoming active, termination) for the
        /// checks that watch plugins at work; returns the failures.
        func runAtWork() -> [PluginFailure] {
            [host.willFinishLaunching(), host.didFinishLaunching(), host.open(url: "https://example.com"),
             host.didBecomeActive(), host.willTerminate()].flatMap(\.failures)
        }
    }

    /// Loads the library in a new worker.
    func load() -> Loaded { Loaded(self) }

    /// The reason of a check skipped because the library does not load.
    static let doesNotLoad = "the library does not load (see the loads check)"

    /// Runs `body` on the library loaded in a new worker, or skips the check when it does not load.
    func withLoaded(_ body: (Loaded) -> (CheckResult.Status, String)) -> (CheckResult.Status, String) {
        let loaded = load()
        defer { loaded.host.shutdown() }
        guard loaded.report.status == .loaded else { return (.skipped, Self.doesNotLoad) }
        return body(loaded)
    }

    /// The result of a `deinit` (`which` one) whose worker failed.
    static func deinitFailed(_ failure: WorkerHarness.DeinitFailure, which: String) -> (CheckResult.Status, String) {
        (status(of: failure.ending), which + ": " + failure.sentence)
    }

    /// `crashed` for a worker that plugin code ended (a signal or an exit), `fail` for the rest
    /// (a call that did not return in time, a broken channel).
    static func status(of ending: WorkerEnding) -> CheckResult.Status {
        switch ending {
        case .crashed, .exited: .crashed
        case .timedOut, .interrupted, .lost: .fail
        }
    }
}
