import Foundation
import Glibc
@testable import Plugboard
import Testing

/// A library loaded in process is remembered in the scan cache as having passed the ELF checks;
/// while its file is unchanged it is loaded without them, and once it changes it is checked again.
@Suite struct CheckedFileTests {
    /// A working plugin library whose `plugboard_entry` is an untyped symbol: code that jumps to the
    /// real entry function. `dlsym` finds it and calling it works, but the checks refuse it (it is
    /// not STT_FUNC), so whether it loads shows whether the checks ran.
    static func untypedEntryLibrary(in directory: String) throws -> String {
        let source = directory + "/untyped_entry.c"
        try """
            #define plugboard_entry real_plugboard_entry
            #include "\(TestPaths.fixtures)/configurable_plugin.c"
            #if defined(__x86_64__)
            __asm__(".text\\n.globl plugboard_entry\\nplugboard_entry:\\n\\tjmp real_plugboard_entry@PLT\\n");
            #elif defined(__aarch64__)
            __asm__(".text\\n.globl plugboard_entry\\nplugboard_entry:\\n\\tb real_plugboard_entry\\n");
            #endif
            """.write(toFile: source, atomically: true, encoding: .utf8)
        let library = try PluginCompiler.compile(source, to: directory + "/plugins/untyped.so", flags: ["-DFIX_ID=\"com.checked.untyped\""])
        try FileManager.default.removeItem(atPath: source)
        // An installed library's age: a record stored within the racy window of its modification is not used.
        try FileChange.setModificationTime(library, FileChange.now(plus: -60))
        return library
    }

    /// One load of `plugins` by a fresh host with the cache at `location`, saved afterwards.
    static func load(_ plugins: String, cache location: ScanCacheLocation, reusing: Bool = true) -> LoadReport? {
        let host = PluginHost()
        host.scanCache = ScanCache(location: location)
        host.reusesScanCache = reusing
        defer {
            host.scanCache?.save()
            host.shutdown()
        }
        return host.loadPlugins(from: PluginSearchPath(explicit: [plugins])).first
    }

    /// A cache file at `location` that remembers `library` as having passed the checks, stored
    /// `storedAt` (a time past the racy window of the file's change time vouches for its bytes).
    static func remember(_ library: String, at location: ScanCacheLocation, storedAt: Duration) throws {
        _ = try ScanCacheFile.write([ScanCacheRecord(key: try ScanCacheKey(path: library), entry: nil, storedAt: storedAt)], to: location)
    }

    @Test func aLibraryRememberedAsCheckedLoadsWithoutTheChecksUntilItChanges() throws {
        let directory = try TemporaryDirectory("plugboard-checked")
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.file("plugins"), withIntermediateDirectories: false)
        let library = try Self.untypedEntryLibrary(in: directory.path)
        let location = try ScanCacheLocation(directory: directory.file("cache"))
        let refusal = "`plugboard_entry` is an untyped symbol (STT_NOTYPE), not a function (STT_FUNC)"
        let later = Duration.sinceEpoch + .seconds(3)

        let first = try #require(Self.load(directory.file("plugins"), cache: location))
        #expect(first.status == .failed && first.failure?.message == refusal, "\(first)")
        #expect(ScanCache(location: location).kind(for: try ScanCacheKey(path: library)) == nil, "a failed load is not remembered")

        try Self.remember(library, at: location, storedAt: Duration.sinceEpoch)
        let racy = try #require(Self.load(directory.file("plugins"), cache: location))
        #expect(racy.failure?.message == refusal, "a record stored within the racy window of the file's change time: \(racy)")

        try Self.remember(library, at: location, storedAt: later)
        let remembered = try #require(Self.load(directory.file("plugins"), cache: location))
        #expect(remembered.status == .loaded, "\(remembered)")
        #expect(remembered.plugins.map(\.descriptor.id.rawValue) == ["com.checked.untyped"])

        let notReusing = try #require(Self.load(directory.file("plugins"), cache: location, reusing: false))
        #expect(notReusing.failure?.message == refusal, "without reuse every library is checked: \(notReusing)")

        try Self.remember(library, at: location, storedAt: later)
        guard chmod(location.file, 0o666) == 0 else { throw TestFailure("chmod failed") }
        let shared = ScanCache(location: location)
        #expect(shared.notes == ["the scan cache \(location.file) may be written by other users (mode 0666): ignored, and rewritten"])
        let writable = try #require(Self.load(directory.file("plugins"), cache: location))
        #expect(writable.failure?.message == refusal, "a cache file others may write vouches for nothing: \(writable)")

        try Self.remember(library, at: location, storedAt: later)
        try FileChange.touch(library)
        let changed = try #require(Self.load(directory.file("plugins"), cache: location))
        #expect(changed.failure?.message == refusal, "a changed file is checked again: \(changed)")
    }

    @Test func aLibraryLoadedInProcessIsRememberedAsChecked() throws {
        let directory = try TemporaryDirectory("plugboard-checked-noted")
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.file("plugins"), withIntermediateDirectories: false)
        let library = try PluginCompiler.fixture("plugins/noted.so", in: directory, ["FIX_ID=\"com.checked.noted\""])
        try FileChange.setModificationTime(library, FileChange.now(plus: -60))
        let location = try ScanCacheLocation(directory: directory.file("cache"))

        var stored: [Duration] = []
        for run in 0..<2 {
            let report = try #require(Self.load(directory.file("plugins"), cache: location))
            #expect(report.status == .loaded, "run \(run): \(report)")
            let record = try #require(ScanCache(location: location).record(at: library), "run \(run)")
            let key = try ScanCacheKey(path: library)
            #expect(record.kind == .checked && record.isValid(for: key), "run \(run)")
            stored.append(record.storedAt)
        }
        // The file changed (was built) moments ago: the first record cannot vouch for it yet, so the
        // second run checked it again and stored a newer one.
        #expect(stored[1] > stored[0])
    }

    /// `run --no-cache` checks every library again, and keeps a listing's reports.
    @Test func runWithoutTheCacheKeepsAListingsReports() throws {
        let work = try ScanCacheWorkspace("checked-no-cache")
        defer { work.remove() }
        let library = try work.library("one")
        #expect(try work.list().status == 0)
        let run = try CLI.run(["run", "--plugin-dir", work.workspace.plugins, "--isolation", "none", "--no-cache"],
                              environment: ["PLUGBOARD_CACHE_DIR": work.cacheDirectory])
        #expect(run.status == 0, "\(run.output)\n\(run.errorOutput)")
        #expect(try work.readCache().kind(for: try ScanCacheKey(path: library)) == .scanned)
        #expect(try work.cached(try work.list()) == ["one.so": true])
    }

    /// A listing stored within the racy window of a file's change time (right after an install that
    /// kept the modification time) cannot vouch for its bytes; `run` checks the library, keeps the
    /// listing's report and stores it anew, so the next start need not check it.
    @Test func aRunRestoresAListingStoredTooSoonAfterAChange() throws {
        let work = try ScanCacheWorkspace("checked-restored")
        defer { work.remove() }
        let library = try work.library("one")
        let key = try ScanCacheKey(path: library)
        #expect(try work.list().status == 0)
        // The listing's report, as if stored a second after the file's change time, whatever this machine's pace.
        let report = try #require(try work.readCache().record(at: library)?.entry)
        let listed = ScanCacheRecord(key: key, entry: report, storedAt: key.changed + .seconds(1))
        _ = try ScanCacheFile.write([listed], to: try ScanCacheLocation(directory: work.cacheDirectory))
        #expect(listed.kind == .scanned && listed.isValid(for: key) && !listed.vouchesForContents(of: key))

        let vouchingFrom = key.changed + ScanCache.racyWindow + .milliseconds(100)
        while Duration.sinceEpoch < vouchingFrom { Thread.sleep(forTimeInterval: 0.05) }
        let run = try CLI.run(["run", "--plugin-dir", work.workspace.plugins, "--isolation", "none"],
                              environment: ["PLUGBOARD_CACHE_DIR": work.cacheDirectory])
        #expect(run.status == 0, "\(run.output)\n\(run.errorOutput)")
        let restored = try #require(try work.readCache().record(at: library))
        #expect(restored.kind == .scanned && restored.entry != nil && restored.storedAt > listed.storedAt)
        #expect(restored.vouchesForContents(of: key))
        #expect(try work.cached(try work.list()) == ["one.so": true])
    }

    /// `plugboard run --isolation none` remembers the libraries it loaded in the cache file it names.
    @Test func runRemembersWhatItLoadedInTheCacheFile() throws {
        let directory = try TemporaryDirectory("plugboard-checked-run")
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.file("plugins"), withIntermediateDirectories: false)
        let library = try PluginCompiler.fixture("plugins/run.so", in: directory, ["FIX_ID=\"com.checked.run\"", "FIX_LAUNCH=true"])
        try FileChange.setModificationTime(library, FileChange.now(plus: -60))
        let cache = directory.file("cache")

        for run in 0..<2 {
            let result = try CLI.run(["run", "--plugin-dir", directory.file("plugins"), "--isolation", "none", "--cache-dir", cache])
            #expect(result.status == 0, "run \(run): \(result.output)\n\(result.errorOutput)")
            #expect(result.output.contains("com.checked.run"), "run \(run): \(result.output)")
        }
        let remembered = ScanCache(location: try ScanCacheLocation(directory: cache))
        #expect(remembered.notes.isEmpty, "\(remembered.notes)")
        #expect(remembered.kind(for: try ScanCacheKey(path: library)) == .checked)
        #expect(remembered.entry(for: try ScanCacheKey(path: library)) == nil, "nothing for a listing: it scans the library")
    }
}
