import CBenchmarkBaseline
import Foundation
import Plugboard

/// One load result for one count of plugins. All times are wall-clock ns.
struct LoadMeasurement {
    /// Libraries (one plugin each) in the directory.
    let plugins: Int
    /// `PluginHost().loadPlugins(from:)` in this process, the first time these files are opened.
    let inProcess: UInt64
    /// The same directory again in this process, after `shutdown()`: the images
    /// are still mapped (RTLD_NODELETE), so this is everything but mapping and relocating.
    let inProcessAgain: UInt64
    /// Libraries the benchmark process already had loaded before `inProcess`.
    let alreadyLoaded: Int
    /// Best of the fresh child processes timing `loadPlugins(from:)` around the call.
    let freshProcess: UInt64
    /// The same with the scan cache a host keeps (`plugboard run --isolation none`, an embedder that
    /// sets ``PluginHost/scanCache``), which remembers every file as checked: opening it is timed too.
    let freshProcessCached: UInt64
    /// Best of the fresh child processes timing the C baseline's `pbb_set_open_directory`.
    let freshProcessC: UInt64
    /// The same, each library first read as the host's ELF checks read it
    /// (`pbb_set_open_directory_checked`): the floor of a loader that checks a file before its `dlopen`.
    let freshProcessCChecked: UInt64
    /// Best wall time of `plugboard list --plugin-dir DIR --json --no-cache`, nil if the CLI was not found.
    let cli: UInt64?
    /// Best wall time of `plugboard list --plugin-dir EMPTY --json --no-cache` (process start-up).
    let cliStartup: UInt64?

    /// The CLI time minus its start-up, never below zero.
    var cliNet: UInt64? {
        guard let cli, let cliStartup else { return nil }
        return cli > cliStartup ? cli - cliStartup : 0
    }

    /// Fresh-process ours divided by fresh-process C.
    var ratio: Double { Double(freshProcess) / Double(max(freshProcessC, 1)) }
    /// The same with the scan cache.
    var cachedRatio: Double { Double(freshProcessCached) / Double(max(freshProcessC, 1)) }
    /// The C loader that reads each file as the checks do, divided by the C loader: what the checks' reads cost.
    var checkedCRatio: Double { Double(freshProcessCChecked) / Double(max(freshProcessC, 1)) }
}

/// Which loader a `--child-load` process runs.
enum LoadSide: String {
    /// `PluginHost().loadPlugins(from:)`.
    case host
    /// The same with the scan cache `plugboard run` keeps (``LoadBenchmark/cacheDirectory(for:)``):
    /// opened inside the timed span, saved after it.
    case hostWithCache = "host-cached"
    /// The C baseline's `pbb_set_open_directory`.
    case c
    /// The C baseline's `pbb_set_open_directory_checked`.
    case cChecked = "c-checked"
}

/// Measures discovering, loading and registering a directory of plugins, in
/// this process and in fresh child processes.
struct LoadBenchmark {
    /// Fresh processes per measurement; the best is kept.
    let repetitions: Int
    /// This executable, re-run with `--child-load` for the fresh-process numbers.
    let executable: String
    /// The `plugboard` CLI, if found.
    let cli: String?
    /// An empty directory, for the CLI's start-up baseline.
    let emptyDirectory: String

    /// Measures one directory of `count` libraries; `paths` are its files,
    /// read once beforehand so that they are in the page cache.
    func run(directory: String, paths: [String], count: Int, alreadyLoaded: Int) throws -> LoadMeasurement {
        Files.warm(paths)

        let host = PluginHost()
        let start = Clock.now()
        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [directory]))
        let inProcess = Clock.now() &- start
        try Self.check(reports, plugins: host.plugins.count, count: count, directory: directory)
        host.shutdown()

        let again = PluginHost()
        let againStart = Clock.now()
        let againReports = again.loadPlugins(from: PluginSearchPath(explicit: [directory]))
        let inProcessAgain = Clock.now() &- againStart
        try Self.check(againReports, plugins: again.plugins.count, count: count, directory: directory)
        again.shutdown()

        try rememberAsChecked(directory, paths: paths, count: count)
        var best = (ours: UInt64.max, cached: UInt64.max, c: UInt64.max, cChecked: UInt64.max, cli: UInt64.max, startup: UInt64.max)
        if let cli {
            let listing = try TimedRun(cli, ["list", "--plugin-dir", directory, "--json", "--no-cache"], captureOutput: true)
            let loaded = listing.output.components(separatedBy: "\"status\" : \"loaded\"").count - 1
            guard listing.termination.succeeded, loaded == count else {
                throw BenchmarkError("\(cli) list --plugin-dir \(directory) --json: \(listing.termination), \(loaded) of \(count) libraries loaded")
            }
        }
        for _ in 0..<repetitions {
            best.ours = min(best.ours, try child(.host, directory, count: count))
            best.cached = min(best.cached, try child(.hostWithCache, directory, count: count))
            best.c = min(best.c, try child(.c, directory, count: count))
            best.cChecked = min(best.cChecked, try child(.cChecked, directory, count: count))
            if let cli {
                best.cli = min(best.cli, try Self.timeList(cli, directory, cache: false))
                best.startup = min(best.startup, try Self.timeList(cli, emptyDirectory, cache: false))
            }
        }
        return LoadMeasurement(plugins: count, inProcess: inProcess, inProcessAgain: inProcessAgain,
                               alreadyLoaded: alreadyLoaded, freshProcess: best.ours, freshProcessCached: best.cached, freshProcessC: best.c,
                               freshProcessCChecked: best.cChecked,
                               cli: cli == nil ? nil : best.cli, cliStartup: cli == nil ? nil : best.startup)
    }

    /// Throws unless every report says loaded and the host has `count` plugins.
    static func check(_ reports: [LoadReport], plugins: Int, count: Int, directory: String) throws {
        let failures = reports.filter { $0.status != .loaded }
        guard failures.isEmpty, reports.count == count, plugins == count else {
            let reason = failures.first.map { "; first problem: \($0.path): \($0.failure.map(\.description) ?? $0.status.rawValue)" } ?? ""
            throw BenchmarkError("loaded \(plugins) plugins from \(reports.count) files of \(count) in \(directory)\(reason)")
        }
    }

    /// Fills the scan cache of the `host-cached` children of `directory` (`paths`, `count` of them): one
    /// such child, once every file changed longer ago than the cache's racy window (a record stored
    /// within it of a file's last change does not vouch for the file).
    private func rememberAsChecked(_ directory: String, paths: [String], count: Int) throws {
        try Files.remove(Self.cacheDirectory(for: directory))
        let newest = paths.compactMap { try? ScanCacheKey(path: $0) }.map { max($0.modified, $0.changed) }.max() ?? .zero
        let wait = newest + ScanCache.racyWindow + .milliseconds(100) - .seconds(Date().timeIntervalSince1970)
        if wait > .zero {
            Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
        }
        _ = try child(.hostWithCache, directory, count: count)
    }

    /// Runs this executable with `--child-load side directory` and returns the
    /// nanoseconds it measured around the load.
    private func child(_ side: LoadSide, _ directory: String, count: Int) throws -> UInt64 {
        let outcome = try TimedRun(executable, ["--child-load", side.rawValue, directory],
                                   captureOutput: true, stderr: .inherit)
        let fields = outcome.output.split(whereSeparator: \.isWhitespace).compactMap { UInt64($0) }
        guard outcome.termination.succeeded, fields.count == 2, fields[1] == UInt64(count) else {
            throw BenchmarkError("the \(side.rawValue) load child for \(directory) failed: \(outcome.termination), output \(String(reflecting: outcome.output))")
        }
        return fields[0]
    }

    /// The wall time of one `plugboard list --plugin-dir DIR --json`, output discarded;
    /// without `cache`, with `--no-cache` (every library scanned in a worker; the cache rewritten).
    static func timeList(_ cli: String, _ directory: String, cache: Bool) throws -> UInt64 {
        let arguments = ["list", "--plugin-dir", directory, "--json"] + (cache ? [] : ["--no-cache"])
        let outcome = try TimedRun(cli, arguments)
        guard outcome.termination.succeeded else {
            throw BenchmarkError("\(cli) \(arguments.joined(separator: " ")) ended with \(outcome.termination)")
        }
        return outcome.nanoseconds
    }

    /// Where the `host-cached` children of `directory` keep their scan cache.
    static func cacheDirectory(for directory: String) -> String {
        directory + ".scan-cache"
    }

    /// The body of a `--child-load` process: loads `directory` with `side`,
    /// prints "<ns> <plugins>" and returns the exit status.
    static func childMain(side: LoadSide, directory: String) -> Int32 {
        switch side {
        case .host, .hostWithCache:
            let host = PluginHost()
            let start = Clock.now()
            if side == .hostWithCache {
                host.scanCache = ScanCache(location: try? ScanCacheLocation(directory: cacheDirectory(for: directory)))
            }
            let reports = host.loadPlugins(from: PluginSearchPath(explicit: [directory]))
            let elapsed = Clock.now() &- start
            host.scanCache?.save()
            let failed = reports.filter { $0.status != .loaded }
            if let first = failed.first {
                Progress.say("\(first.path): \(first.failure.map(\.description) ?? first.status.rawValue)")
                return 1
            }
            print("\(elapsed) \(host.plugins.count)")
        case .c, .cChecked:
            var error = [CChar](repeating: 0, count: 512)
            let start = Clock.now()
            let set = side == .c ? pbb_set_open_directory(directory, &error, error.count)
                : pbb_set_open_directory_checked(directory, &error, error.count)
            let elapsed = Clock.now() &- start
            guard let set else {
                Progress.say(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                return 1
            }
            print("\(elapsed) \(pbb_set_plugin_count(set))")
            pbb_set_close(set)
        }
        return 0
    }
}
