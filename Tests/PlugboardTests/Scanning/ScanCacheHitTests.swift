import Foundation
import Glibc
import Plugboard
import Testing

/// `plugboard list` answers unchanged libraries from the scan cache without loading
/// them, and scans a library again as soon as any part of its key changes.
@Suite struct ScanCacheHitTests {
    @Test func secondListIsAnsweredFromTheCacheWithoutLoadingAnything() throws {
        let work = try ScanCacheWorkspace("hit")
        defer { work.remove() }
        try work.library("one")
        try work.library("two")

        let first = try work.list()
        #expect(first.status == 0, "\(first.output)\n\(first.errorOutput)")
        #expect(try work.cached(first) == ["one.so": false, "two.so": false])
        #expect(work.loads("one") == 1 && work.loads("two") == 1)

        let second = try work.list()
        #expect(second.status == 0, "\(second.output)\n\(second.errorOutput)")
        #expect(try work.cached(second) == ["one.so": true, "two.so": true])
        #expect(work.loads("one") == 1 && work.loads("two") == 1, "a cache hit loaded the library")
        let plugins = try CLI.libraries(second).compactMap { $0.objects("plugins")?.first?.object("descriptor")?.string("id") }
        #expect(plugins == ["com.cache.one", "com.cache.two"])

        let human = try CLI.run(["list", "--plugin-dir", work.workspace.plugins] + work.grants, environment: ["PLUGBOARD_CACHE_DIR": work.cacheDirectory])
        #expect(human.output.contains("loaded   \(work.workspace.plugins)/one.so  (ABI \(ABIVersion.host))  (cached)\n"), "\(human.output)")
        #expect(human.output.contains("2 file(s): 2 loaded, 0 failed, 0 skipped; 2 plugin(s)"), "\(human.output)")
        #expect(work.loads("one") == 1)

        let inspect = try CLI.run(["inspect", work.workspace.plugins + "/one.so", "--json"] + work.grants,
                                  environment: ["PLUGBOARD_CACHE_DIR": work.cacheDirectory])
        let inspected = try #require(jsonObject(inspect.output)?.object("library"), "\(inspect.output)")
        #expect(inspected["cached"] as? Bool == true && inspected.string("status") == "loaded", "\(inspected)")
        #expect(work.loads("one") == 1)
    }

    @Test func aCachedReportIsTheReportOfTheScan() throws {
        let work = try ScanCacheWorkspace("fidelity")
        defer { work.remove() }
        try work.library("hostile")
        let rich = try work.workspace.plugin("rich.so", ["FIX_ID=\"com.cache.rich\"", "FIX_SECOND_ID=\"com.cache.second\"", "FIX_PRIORITY=-7",
                                                         "FIX_LAUNCH=1", "FIX_OPEN_URL=1", "FIX_BROADCASTS", "FIX_ADD_TWICE"])
        try FileChange.setModificationTime(rich, FileChange.now(plus: -60))
        let scanned = try CLI.libraries(try work.list())
        let cached = try CLI.libraries(try work.list())
        #expect(cached.map { $0["cached"] as? Bool } == [true, true])
        let strip = { (library: [String: Any]) in library.filter { $0.key != "cached" } as NSDictionary }
        #expect(scanned.map(strip) == cached.map(strip))
        #expect(cached.contains { ($0["refused"] as? [Any])?.isEmpty == false }, "the fixture refuses a plugin: \(cached)")
    }

    enum Change: String, CaseIterable {
        case touch, replace, grow, rewriteInPlace
    }

    @Test(arguments: Change.allCases)
    func aChangedFileIsScannedAgain(_ change: Change) throws {
        let work = try ScanCacheWorkspace("change-\(change)")
        defer { work.remove() }
        let changed = try work.library("changed")
        try work.library("kept")
        #expect(try work.list().status == 0)

        switch change {
        case .touch: try FileChange.touch(changed)
        case .replace: try FileChange.replaceKeepingSizeAndTime(changed)
        case .grow: try FileChange.growKeepingTime(changed)
        case .rewriteInPlace: try FileChange.rewriteKeepingSizeAndTime(changed)
        }
        let after = try work.list()
        #expect(after.status == 0, "\(after.output)\n\(after.errorOutput)")
        #expect(try work.cached(after) == ["changed.so": false, "kept.so": true])
        #expect(work.loads("changed") == 2 && work.loads("kept") == 1)

        #expect(try work.cached(try work.list()) == ["changed.so": true, "kept.so": true], "the new key was not stored")
        #expect(work.loads("changed") == 2)
    }

    @Test func aFileChangedInPlaceWithinTheSameClockTickIsNotServedStale() throws {
        let work = try ScanCacheWorkspace("racy")
        defer { work.remove() }
        let file = try work.library("racy", id: "com.cache.aaaa")
        let replacement = try work.library("replacement", id: "com.cache.bbbb", in: work.workspace.root.path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: replacement))
        try #require(try Data(contentsOf: URL(fileURLWithPath: file)).count == bytes.count, "the two builds differ in size")
        // Both versions carry the same modification time, later than any scan of this test:
        // path, device, inode, size and time stay the same, only the bytes change.
        let time = FileChange.now(plus: 30)
        try FileChange.setModificationTime(file, time)
        let ids = { (result: ProcessResult) in try CLI.libraries(result).compactMap { $0.objects("plugins")?.first?.object("descriptor")?.string("id") } }
        #expect(try ids(try work.list()) == ["com.cache.aaaa"])

        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.write(contentsOf: bytes)
        try handle.close()
        try FileChange.setModificationTime(file, time)
        let after = try work.list()
        #expect(try ids(after) == ["com.cache.bbbb"], "a racily clean entry was used")
        #expect(try work.cached(after) == ["racy.so": false])
    }

    @Test(arguments: [10_000_000_000, -1])  // after 2262 a time in ns overflows Int64
    func aLibraryDatedFarFromNowIsListed(_ seconds: Int) throws {
        let work = try ScanCacheWorkspace("dated-\(seconds)")
        defer { work.remove() }
        let file = try work.library("dated")
        try FileChange.setModificationTime(file, timespec(tv_sec: seconds, tv_nsec: 999_999_999))
        for cached in [false, seconds < 0] {
            let result = try work.list()
            #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
            #expect(try work.cached(result) == ["dated.so": cached], "a file dated in the future is never trusted")
        }
    }

    @Test func aRemovedLibraryIsForgotten() throws {
        let work = try ScanCacheWorkspace("removed")
        defer { work.remove() }
        let removed = try work.library("removed")
        let kept = try work.library("kept")
        let elsewhere = try ScanCacheWorkspace("removed-elsewhere")
        defer { elsewhere.remove() }
        let other = try elsewhere.library("other")
        #expect(try work.list().status == 0)
        #expect(try work.list(directory: elsewhere.workspace.plugins).status == 0)
        #expect(try work.readCache().paths == [removed, kept, other].sorted())

        try FileManager.default.removeItem(atPath: removed)
        #expect(try work.cached(try work.list()) == ["kept.so": true])
        #expect(try work.readCache().paths == [kept, other].sorted(), "only the listed directory's missing file is forgotten")
    }

    @Test func noCacheRescansEverythingAndRewritesTheCache() throws {
        let work = try ScanCacheWorkspace("no-cache")
        defer { work.remove() }
        try work.library("one")
        #expect(try work.list().status == 0)
        try work.write(cache: Array("not a cache".utf8))

        let rescan = try work.list(["--no-cache"])
        #expect(try work.cached(rescan) == ["one.so": false])
        #expect(work.loads("one") == 2)
        #expect(try work.cached(try work.list()) == ["one.so": true])
        #expect(work.loads("one") == 2)
    }

    @Test func trustRuleIsAppliedToACachedLibrary() throws {
        let work = try ScanCacheWorkspace("trust")
        defer { work.remove() }
        let file = try work.library("shared")
        #expect(try work.list().status == 0)
        guard chmod(file, 0o775) == 0 else { throw TestFailure("chmod failed") }

        let refused = try work.list()
        #expect(refused.status == 1)
        let report = try #require(try CLI.libraries(refused).first)
        #expect(report.string("status") == "failed" && report.object("failure")?.string("stage") == "trust", "\(report)")

        // The mode is not part of the key, but `chmod` sets the change time, which is: scanned again.
        let allowed = try work.list(["--allow-insecure"])
        #expect(allowed.status == 0)
        #expect(work.loads("shared") == 2)
        for (index, result) in [allowed, try work.list(["--allow-insecure"])].enumerated() {
            let loaded = try #require(try CLI.libraries(result).first)
            #expect(loaded["cached"] as? Bool == (index == 1) && loaded.string("status") == "loaded", "\(loaded)")
            #expect((loaded["warnings"] as? [String])?.first?.contains("writable by group") == true, "\(loaded)")
        }
        #expect(work.loads("shared") == 2, "the cached entry carries no warning of its own: the rule is applied on every run")
    }

    @Test func anIDClaimedByACachedAndANewLibraryIsRefusedForBoth() throws {
        let work = try ScanCacheWorkspace("contested")
        defer { work.remove() }
        try work.library("a-first", id: "com.cache.same")
        #expect(try work.list().status == 0)
        try work.library("b-second", id: "com.cache.same")

        let result = try work.list()
        #expect(result.status == 1)
        #expect(try work.cached(result) == ["a-first.so": true, "b-second.so": false])
        for library in try CLI.libraries(result) {
            #expect(library.string("status") == "failed", "\(library)")
            let refusal = library.objects("refused")?.first?.object("failure")?.string("message") ?? ""
            #expect(refusal.contains("claimed by two libraries, \(work.workspace.plugins)/a-first.so and \(work.workspace.plugins)/b-second.so"),
                    "\(library)")
        }
    }
}
