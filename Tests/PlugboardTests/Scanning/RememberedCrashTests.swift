import Foundation
import Plugboard
import Testing

/// A library that crashed while being scanned stays failed, with its reason, until its
/// file changes or `--retry-failed` is given. The crash is recorded through the embedding
/// API, as the scanning code that saw it does.
@Suite struct RememberedCrashTests {
    /// Records in `work`'s cache that `library` crashed in `init`.
    private func recordCrash(of library: String, in work: ScanCacheWorkspace) throws {
        var cache = ScanCache(location: try ScanCacheLocation(directory: work.cacheDirectory))
        cache.recordCrash(LoadFailure(.`init`, "crashed with SIGSEGV in init"), for: try ScanCacheKey(path: library))
        cache.save()
        #expect(cache.notes.isEmpty, "\(cache.notes)")
    }

    @Test func aRememberedCrashIsReportedUntilTheFileChanges() throws {
        let work = try ScanCacheWorkspace("crash")
        defer { work.remove() }
        let crashed = try work.library("crashed")
        try work.library("good")
        try recordCrash(of: crashed, in: work)

        for round in 0..<2 {
            let result = try work.list()
            #expect(result.status == 1, "\(result.output)")
            #expect(try work.cached(result) == ["crashed.so": true, "good.so": round == 1])
            let report = try #require(try CLI.libraries(result).first)
            #expect(report.string("status") == "failed")
            #expect(report.object("failure")?.string("stage") == "init", "\(report)")
            #expect(report.object("failure")?.string("message")
                    == "crashed with SIGSEGV in init; remembered until the file changes, or pass --retry-failed", "\(report)")
            #expect(work.loads("crashed") == 0, "a remembered crash was loaded again")
        }
        let human = try CLI.run(["list", "--plugin-dir", work.workspace.plugins] + work.grants, environment: ["PLUGBOARD_CACHE_DIR": work.cacheDirectory])
        #expect(human.output.contains("FAILED   \(crashed): init: crashed with SIGSEGV in init; remembered until the file changes, or pass --retry-failed  (cached)"),
                "\(human.output)")

        try FileChange.touch(crashed)
        let rescanned = try work.list()
        #expect(rescanned.status == 0, "\(rescanned.output)")
        #expect(try work.cached(rescanned) == ["crashed.so": false, "good.so": true])
        #expect(work.loads("crashed") == 1)
    }

    /// `run` skips a library remembered as crashed; `run --retry-failed` that loads it fine forgets
    /// the crash, so the next `run` loads it without the flag.
    @Test func aRunThatRetriesAndLoadsForgetsTheCrash() throws {
        let work = try ScanCacheWorkspace("run-retry")
        defer { work.remove() }
        let crashed = try work.library("crashed")
        try recordCrash(of: crashed, in: work)
        func run(_ extra: [String] = []) throws -> ProcessResult {
            try CLI.run(["run", "--plugin-dir", work.workspace.plugins, "--container", work.workspace.root.file("container")]
                        + work.grants + extra, environment: ["PLUGBOARD_CACHE_DIR": work.cacheDirectory])
        }
        let skipped = try run()
        #expect(skipped.status == 3 && skipped.output.contains("remembered until the file changes"), "\(skipped.output)")
        let retried = try run(["--retry-failed"])
        #expect(retried.status == 0, "\(retried.output)\n\(retried.errorOutput)")
        let again = try run()
        #expect(again.status == 0 && !again.output.contains("remembered"), "\(again.output)\n\(again.errorOutput)")
        #expect(work.loads("crashed") == 2, "loaded by the retry and by the run after it")
    }

    @Test func retryFailedScansARememberedCrashAgain() throws {
        let work = try ScanCacheWorkspace("retry")
        defer { work.remove() }
        let crashed = try work.library("crashed")
        try recordCrash(of: crashed, in: work)

        let retried = try work.list(["--retry-failed"])
        #expect(retried.status == 0, "\(retried.output)")
        #expect(try work.cached(retried) == ["crashed.so": false])
        #expect(work.loads("crashed") == 1)
        #expect(try work.cached(try work.list()) == ["crashed.so": true], "the successful scan replaced the crash")

        try recordCrash(of: crashed, in: work)
        let inspected = try CLI.run(["inspect", crashed, "--retry-failed"] + work.grants, environment: ["PLUGBOARD_CACHE_DIR": work.cacheDirectory])
        #expect(inspected.status == 0, "\(inspected.output)")
        #expect(work.loads("crashed") == 2)
    }

    @Test func anOrdinaryLoadFailureIsNotRemembered() throws {
        let work = try ScanCacheWorkspace("ordinary")
        defer { work.remove() }
        try work.library("fails", ["FAIL_AT=AT_INIT"])
        for loads in 1...2 {
            let result = try work.list()
            #expect(result.status == 1)
            #expect(try work.cached(result) == ["fails.so": false])
            #expect(work.loads("fails") == loads)
        }
    }
}
