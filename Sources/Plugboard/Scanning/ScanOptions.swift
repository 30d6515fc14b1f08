/// How a listing uses the ``ScanCache``.
public struct ScanOptions: Sendable {
    /// Answer unchanged files from the cache; false scans every file again (and stores the results).
    public var reuse: Bool
    /// Scan a library again even though the cache remembers that it crashed.
    public var retryCrashed: Bool
    /// How a library that must be scanned is loaded, given its path; see ``ScanOptions/inProcess``.
    public var load: @Sendable (String) -> ScanCacheEntry

    /// Options with the given choices.
    public init(reuse: Bool = true, retryCrashed: Bool = false,
                load: @escaping @Sendable (String) -> ScanCacheEntry = ScanOptions.inProcess) {
        self.reuse = reuse
        self.retryCrashed = retryCrashed
        self.load = load
    }

    /// Loads the library in a host of its own, in this process, and shuts that host down:
    /// the library's report as it registers alone. Its trust warnings are left out (the
    /// listing applies the trust rule before loading), and a crash ends the process.
    public static let inProcess: @Sendable (String) -> ScanCacheEntry = { path in
        let host = PluginHost()
        defer { host.shutdown() }
        var report = host.loadLibrary(at: path, trust: .allowInsecure)
        report.warnings = []
        return .scanned(report: report)
    }

    /// Loads the library in a worker process (the `plugboard-worker` executable at
    /// `worker`), so no plugin code runs in this process; a worker that crashes, exits
    /// or does not return within `callTimeout` makes a ``ScanCacheEntry/crashed(reason:)``
    /// entry, remembered until the file changes. What plugin code prints goes to `output`.
    /// The worker is confined as `sandbox` and the `grants` of a policy say.
    public static func inWorkers(worker: String, callTimeout: Duration?, sandbox: SandboxMode = .best,
                                 grants policy: AccessPolicy? = nil,
                                 output: @escaping PluginHost.OutputHandler) -> @Sendable (String) -> ScanCacheEntry {
        // Only the policy's sandbox grants: its concern and service rules do not change what a scan reports.
        let grants = policy.map { [PluginDecorator.authorization(AccessPolicy(source: $0.source, libraries: $0.libraries))] } ?? []
        return { path in
            let host = PluginHost(callTimeout: callTimeout, isolation: .workers(worker: worker), sandbox: sandbox,
                                  decorators: grants, outputHandler: output)
            defer { host.shutdown() }
            var report = host.loadLibrary(at: path, trust: .allowInsecure)
            report.warnings = []
            if host.loader.loaded.lostWhileLoading[path] != nil, let failure = report.failure {
                return .crashed(reason: failure)
            }
            return .scanned(report: report)
        }
    }
}
