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

    /// A library loaded for one check, with what its plugins printed and logged, and a scratch
    /// container for its files service (removed with this object, after the host shut down).
    final class Loaded {
        /// The host that loaded it, in a worker.
        let host: PluginHost
        /// The load's report.
        let report: LoadReport
        /// How long the load took, in milliseconds.
        let milliseconds: Double
        private let seen: Seen
        /// The container the plugins' files service works on, for this check only.
        private let scratch: ScratchContainer?

        /// What the handlers receive, from any thread.
        private final class Seen: Sendable {
            let output = Mutex<[PluginOutputLine]>([])
            let hostWarnings = Mutex<[PluginLogRecord]>([])
            let refusedPosts = Mutex<[PluginLogRecord]>([])
        }

        fileprivate init(_ subject: ValidationSubject) {
            let seen = Seen()
            self.seen = seen
            let scratch = ScratchContainer()
            self.scratch = scratch
            host = PluginHost(fileFacade: scratch?.facade, callTimeout: subject.callTimeout,
                              isolation: .workers(worker: subject.worker),
                              logHandler: { record in
                                  guard record.level >= .warning else { return }
                                  if record.source == HostIdentity.name {
                                      seen.hostWarnings.withLock { $0.append(record) }
                                  } else if record.message.hasPrefix("post"), record.message.hasSuffix("; refused") {
                                      seen.refusedPosts.withLock { $0.append(record) }
                                  }
                              },
                              outputHandler: { line in seen.output.withLock { $0.append(line) } })
            let clock = ContinuousClock()
            let start = clock.now
            report = host.loadLibrary(at: subject.path)
            milliseconds = (clock.now - start).milliseconds
        }

        /// The status of a failure seen so far: `crashed` when plugin code ended the library's
        /// worker (a signal or an exit), `fail` otherwise (see ``status(of:)``).
        var failureStatus: CheckResult.Status {
            host.workerEnding(of: report.path).map(ValidationSubject.status(of:)) ?? .fail
        }

        /// The lines plugin code wrote to standard output so far.
        var standardOutput: [String] { seen.output.withLock { $0.filter { $0.stream == .stdout }.map(\.text) } }
        /// The posts the bus refused so far, as the host logged them (`post NAME: cause; refused`).
        var refusedPosts: [PluginLogRecord] { seen.refusedPosts.withLock { $0 } }
        /// The saved-state store of the scratch container; nil when none could be made.
        var stateStore: SavedStateStore? { scratch.map { SavedStateStore(facade: $0.facade) } }
        /// The warnings and errors the host logged so far (a worker that failed in `deinit`,
        /// a completion answered twice, say).
        var hostWarnings: [PluginLogRecord] { seen.hostWarnings.withLock { $0 } }
    }

    /// Loads the library in a new worker.
    func load() -> Loaded { Loaded(self) }

    /// `crashed` for a worker that plugin code ended (a signal or an exit), `fail` for the rest
    /// (a call that did not return in time, a broken channel).
    static func status(of ending: WorkerEnding) -> CheckResult.Status {
        switch ending {
        case .crashed, .exited: .crashed
        case .timedOut, .interrupted, .lost: .fail
        }
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
