import ArgumentParser
import Foundation
import Plugboard

/// `--no-cache`, `--cache-dir` and `--retry-failed`, shared by the commands that scan plugins.
struct ScanCacheOptions: ParsableArguments {
    @Flag(name: .customLong("no-cache"),
          help: "Use nothing the scan cache remembers: scan every library again instead of answering unchanged files from it (list, inspect), or check every library again and load those it remembers as crashed (run, call); then rewrite the cache with what was found.")
    var noCache = false

    @Option(name: .customLong("cache-dir"),
            help: ArgumentHelp(
                "The directory of the scan cache file (\(ScanCacheLocation.fileName)), an absolute path. Default: $PLUGBOARD_CACHE_DIR, else $XDG_CACHE_HOME/plugboard (or ~/.cache/plugboard).",
                valueName: "dir"))
    var cacheDirectory: String?

    @Flag(name: .customLong("retry-failed"),
          help: "Scan (list, inspect) or load (run) a library again although the scan cache remembers that it crashed, exited or hung while being loaded in a worker.")
    var retryFailed = false

    func validate() throws {
        _ = try location()
    }

    /// The scan cache, read from its file (in memory only when no directory is known).
    func open() throws -> ScanCache {
        ScanCache(location: try location())
    }

    /// How the command uses the cache, scanning the libraries that must be scanned with `scanning`.
    func scanOptions(scanning: @escaping @Sendable ([String]) -> [ScanCacheEntry]) -> ScanOptions {
        ScanOptions(reuse: !noCache, retryCrashed: retryFailed, scan: scanning)
    }

    private func location() throws -> ScanCacheLocation? {
        do {
            return try ScanCacheLocation.resolve(flag: cacheDirectory, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
