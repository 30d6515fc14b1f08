/// How a listing uses the ``ScanCache``.
public struct ScanOptions: Sendable {
    /// Answer unchanged files from the cache; false scans every file again (and stores the results).
    public var reuse: Bool
    /// Scan a library again even though the cache remembers that it crashed.
    public var retryCrashed: Bool
    /// How the libraries that must be scanned are loaded, given their paths: one entry per path,
    /// in order; see ``ScanOptions/inProcess`` and ``ScanOptions/inWorkers(worker:callTimeout:sandbox:grants:output:)``.
    public var scan: @Sendable ([String]) -> [ScanCacheEntry]

    /// Options with the given choices.
    public init(reuse: Bool = true, retryCrashed: Bool = false,
                scan: @escaping @Sendable ([String]) -> [ScanCacheEntry] = ScanOptions.inProcess) {
        self.reuse = reuse
        self.retryCrashed = retryCrashed
        self.scan = scan
    }

    /// Loads each library in a host of its own, in this process, and shuts that host down:
    /// the library's report as it registers alone. Its trust warnings are left out (the
    /// listing applies the trust rule before loading), and a crash ends the process.
    public static let inProcess: @Sendable ([String]) -> [ScanCacheEntry] = { paths in
        paths.map { path in
            let host = PluginHost()
            defer { host.shutdown() }
            var report = host.loadLibrary(at: path, trust: .allowInsecure)
            report.warnings = []
            return .scanned(report: report)
        }
    }

    /// Loads the libraries in scanner workers (the `plugboard-worker` executable at `worker`), so
    /// no plugin code runs in this process: each worker loads a share of them one after another,
    /// each alone, up to one worker per processor at a time (``WorkerScanner``). A library that
    /// crashes, exits or does not return within `callTimeout` makes a
    /// ``ScanCacheEntry/crashed(reason:)`` entry, remembered until the file changes, and a fresh
    /// worker goes on with the next. What plugin code prints goes to `output`. The workers are
    /// confined as `sandbox` and the `grants` of a policy say.
    public static func inWorkers(worker: String, callTimeout: Duration?, sandbox: SandboxMode = .best,
                                 grants policy: AccessPolicy? = nil,
                                 output: @escaping PluginHost.OutputHandler) -> @Sendable ([String]) -> [ScanCacheEntry] {
        // Only the policy's sandbox grants: its concern and service rules do not change what a scan reports.
        let scanner = WorkerScanner(worker: worker, callTimeout: callTimeout, sandbox: sandbox, policy: policy, output: output)
        return { paths in scanner.scan(paths) }
    }
}
