import ArgumentParser
import Plugboard

/// `plugboard list`: every file found, its load status, and each plugin.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the plugin files found, their load status, and their plugins.",
        discussion: """
            Loads each library (entry, version check, init, register) without sending any \
            lifecycle event, then lets go of it, in scanner workers: no plugin code runs in this \
            process. A scanner worker loads up to 32 libraries one after another, each alone, \
            and one scanner per processor runs at a time. A library that crashes, exits or \
            does not return within --call-timeout while loading is reported as failed at the \
            stage it was in (and remembered by the scan cache until its file changes), and a \
            fresh worker goes on with the next; a library that was not its worker's first is \
            scanned again alone before a crash is held against it. What a plugin prints goes to standard error, \
            attributed to the library being scanned when it is read, never into the report; \
            the human report escapes control characters (\\n, \\x1b).

            Scan cache: what each library registered is kept in one file, \
            $XDG_CACHE_HOME/plugboard/\(ScanCacheLocation.fileName) (or ~/.cache/plugboard/; \
            --cache-dir or $PLUGBOARD_CACHE_DIR moves it), \
            keyed on the file's path, device, inode, size and modification time and on the host \
            ABI. An unchanged library is answered from it without being loaded: "(cached)" \
            in the report, "cached": true in --json. The trust rule is applied on every run. \
            A library that crashed while being scanned stays failed, with its reason, until \
            its file changes or --retry-failed is given; an ordinary load failure is not \
            remembered. A corrupt or foreign cache file is ignored and rewritten (a note says \
            so). To clear the cache, remove the file, or pass --no-cache.

            --policy FILE shows what the policy denies each plugin ("denied by policy: files, \
            open-url"; "policy": {"policy", "denials"} in --json), as `run --policy` applies it.

            \(ExitCodes.helpText)
            """)

    @OptionGroup var search: PluginSearchOptions
    @OptionGroup var trust: TrustOptions
    @OptionGroup var callTimeout: CallTimeoutOptions
    @OptionGroup var cache: ScanCacheOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var sandbox: SandboxOptions
    @OptionGroup var output: OutputOptions

    /// The `--json` document: `{"cacheFile", "libraries", "notes", "policy", "searchPath"}`, the
    /// scan cache file (absent without one), each file's report with its `cached` flag, what
    /// the operator should know of the cache file, what `--policy` denies each plugin (absent
    /// without one), and the directories searched. Written directly, not through `Codable`:
    /// see ``JSONWriter``.
    static func listing(searchPath: [String], libraries: [ScannedLibrary], cacheFile: String?, notes: [String],
                        policy: PolicyDenials?) -> JSONWriter {
        var writer = JSONWriter()
        writer.object { writer in
            writer.member("cacheFile", ifPresent: cacheFile)
            writer.key("libraries")
            writer.array(libraries) { $1.writeJSON(into: &$0) }
            writer.key("notes")
            writer.array(notes)
            if let policy {
                writer.key("policy")
                policy.writeJSON(into: &writer)
            }
            writer.key("searchPath")
            writer.array(searchPath)
        }
        return writer
    }

    func run() throws {
        let console = Console.takeStandardOutput()
        FaultReporter.install()
        let searchPath = search.searchPath
        var scanCache = try cache.open()
        var libraries = scanCache.list(searchPath, trust: trust.policy,
                                       options: cache.scanOptions(scanning: ScanOptions.inWorkers(
                                           worker: try IsolationOptions.workerPath(), callTimeout: callTimeout.timeout,
                                           sandbox: sandbox.mode, grants: try policy.policy(), output: StandardStream.writeOutputLine)))
        scanCache.save()
        let policy = try policy.policy()
        for index in libraries.indices { libraries[index].report = sandbox.describing(libraries[index].report, policy: policy) }
        let reports = libraries.map(\.report)
        let denials = PolicyDenials(policy, plugins: reports.flatMap(\.plugins))
        if output.json {
            console.jsonDocument(Self.listing(searchPath: searchPath.directories.map(\.path), libraries: libraries,
                                              cacheFile: scanCache.location?.file, notes: scanCache.notes, policy: denials))
        } else {
            var listing = reports.isEmpty ? ["no plugin files in " + searchPath.directories.map(\.path).joined(separator: ", ")] : []
            for library in libraries {
                let lines = HumanFormat.load(library.report, denials: denials)
                listing += lines.prefix(1).map { library.cached ? $0 + "  (cached)" : $0 } + lines.dropFirst()
            }
            listing += scanCache.notes.map { "note: " + $0 }
            listing.append(HumanFormat.tally(reports))
            console.lines(listing)
        }
        if reports.contains(where: { $0.status == .failed }) { throw ExitCodes.failure }
    }
}
