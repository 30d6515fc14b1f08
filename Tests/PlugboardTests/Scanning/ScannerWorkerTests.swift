import Foundation
import Testing
@testable import Plugboard

/// A cold `list` scans in scanner workers: each loads many libraries one after another,
/// goes on with a fresh worker after a library that crashes, exits or hangs (remembered as
/// now), and may read only the libraries of its share.
@Suite struct ScannerWorkerTests {
    @Test func aColdListLoadsManyLibrariesPerWorkerAndGoesOnAfterACrash() throws {
        let work = try ScanCacheWorkspace("scanner")
        defer { work.remove() }
        let good = (0..<12).map { String(format: "p%02d", $0 * 2) }
        for name in good { try work.library(name, name == "p06" ? ["PRINT_AT=AT_INIT"] : []) }
        try work.library("p03", ["SEGV_AT=AT_INIT"])
        try work.library("p09", ["EXIT_AT=AT_REGISTER"])
        try work.library("p15", ["SPIN_AT=AT_ENTRY"])
        try work.library("p17", ["SEGV_AT=AT_DEINIT"])

        let cold = try work.list(["--call-timeout", "2"])
        #expect(cold.status == 1, "\(cold.output)\n\(cold.errorOutput)")
        let reports = Dictionary(uniqueKeysWithValues: try CLI.libraries(cold).map {
            (URL(fileURLWithPath: $0.string("path") ?? "").deletingPathExtension().lastPathComponent, $0)
        })
        for name in good + ["p17"] {
            #expect(reports[name]?.string("status") == "loaded" && reports[name]?["cached"] as? Bool == false, "\(name): \(reports[name] ?? [:])")
            #expect(work.loads(name) == 1, "\(name) loaded once")
        }
        for (name, stage, cause) in [("p03", "init", "SIGSEGV"), ("p09", "register", "exited"), ("p15", "entry", "did not return")] {
            let failure = reports[name]?.object("failure")
            #expect(reports[name]?.string("status") == "failed" && failure?.string("stage") == stage
                    && failure?.string("message")?.contains(cause) == true, "\(name): \(reports[name] ?? [:])")
        }
        // One share of 16 libraries: a worker; each of the three that end theirs is scanned again alone
        // (a library before it might have been the cause), then a fresh worker goes on: 7, and one more
        // after p17, which ends its worker in deinit, after its report.
        let processes = Set((good + ["p03", "p09", "p15", "p17"]).flatMap(work.loaders))
        #expect(processes.count <= 8, "libraries per worker: \(processes.count) processes for 16 libraries")
        #expect(["p03", "p09", "p15"].allSatisfy { Set(work.loaders($0)).count == 2 }, "each crash confirmed alone")
        #expect(cold.errorOutput.contains("raw garbage on fd 1"), "what a plugin prints reaches standard error: \(cold.errorOutput)")

        let warm = try work.list(["--call-timeout", "2"])
        #expect(try work.cached(warm).values.allSatisfy { $0 }, "\(warm.output)")
        let remembered = try CLI.libraries(warm).filter { $0.string("status") == "failed" }
        #expect(remembered.count == 3 && remembered.allSatisfy {
            $0.object("failure")?.string("message")?.hasSuffix("remembered until the file changes, or pass --retry-failed") == true
        }, "\(remembered)")
        #expect(good.allSatisfy { work.loads($0) == 1 }, "a warm list loads nothing")
    }

    /// A library whose thread posts from `init` on, scanned in a worker that loads others after it:
    /// a scan keeps no bus, so the posts are dropped; neither it nor the libraries after it fail.
    @Test func aThreadPostingDuringAScanBreaksNothing() throws {
        let work = try ScanCacheWorkspace("scanner-posts")
        defer { work.remove() }
        try work.library("a0", ["STRAY_POST_THREAD_AT=AT_INIT"])
        for name in ["a1", "a2", "a3", "a4", "a5"] { try work.library(name, ["SLEEP_AT=AT_INIT"]) }
        let cold = try work.list([])
        #expect(cold.status == 0, "\(cold.output)\n\(cold.errorOutput)")
        #expect(try CLI.libraries(cold).allSatisfy { $0.string("status") == "loaded" }, "\(cold.output)")
    }

    /// A scanner worker that does not answer its handshake (here a program that is no worker and
    /// exits at once) fails every library of its share, each report naming its own library only.
    @Test func aFailedHandshakeNamesNoOtherLibrary() throws {
        let work = try ScanCacheWorkspace("scanner-handshake")
        defer { work.remove() }
        for name in ["h1", "h2", "h3"] { try work.library(name, []) }
        let listed = try CLI.run(["list", "--plugin-dir", work.workspace.plugins, "--json", "--no-cache"],
                                 environment: ["PLUGBOARD_WORKER": "/bin/true"])
        let reports = try CLI.libraries(listed)
        try #require(reports.count == 3 && reports.allSatisfy { $0.string("status") == "failed" }, "\(listed.output)\n\(listed.errorOutput)")
        for report in reports {
            let message = report.object("failure")?.string("message") ?? ""
            #expect(message.contains("the plugin worker exited with status 0 in its handshake"), "\(report)")
            #expect(!["h1.so", "h2.so", "h3.so"].contains { message.contains($0) }, "\(report)")
        }
    }

    /// A library a thread of an earlier library crashes the worker under is not blamed: it is scanned
    /// again, first in a fresh worker, and only a crash there would be its own.
    @Test func aLibraryIsNotBlamedForACrashALibraryBeforeItCaused() throws {
        let work = try ScanCacheWorkspace("scanner-blame")
        defer { work.remove() }
        try work.library("q1", ["LATE_SEGV_AT=AT_INIT"])
        try work.library("q2", ["SLEEP_AT=AT_INIT"])
        let listed = try work.list()
        let reports = Dictionary(uniqueKeysWithValues: try CLI.libraries(listed).map {
            (URL(fileURLWithPath: $0.string("path") ?? "").deletingPathExtension().lastPathComponent, $0)
        })
        #expect(reports["q2"]?.string("status") == "loaded", "\(reports["q2"] ?? [:])")
        #expect(work.loads("q2") == 2 && Set(work.loaders("q2")).count == 2, "scanned again in a fresh worker: \(work.loaders("q2"))")
        let again = try work.list()
        #expect(try work.cached(again)["q2.so"] == true, "remembered as scanned, not as crashed: \(again.output)")
    }

    /// A scanner worker may read the libraries of its share, and nothing else that a library's
    /// own worker could not: a file outside, or a file beside the libraries.
    @Test func aScannerWorkerReadsOnlyTheLibrariesOfItsShare() throws {
        let work = try ScanCacheWorkspace("scanner-sandbox")
        defer { work.remove() }
        let secret = work.workspace.root.file("secret")
        let beside = work.workspace.plugins + "/notes.txt"
        for file in [secret, beside] { try Data("secret".utf8).write(to: URL(fileURLWithPath: file)) }
        try work.library("a0")
        for (name, target) in [("a1", secret), ("a2", beside), ("a3", work.workspace.plugins + "/a0.so")] {
            _ = try PluginCompiler.compile(TestPaths.fixtures + "/configurable_plugin.c", to: work.workspace.plugins + "/\(name).so", flags: [
                "-DFIX_ID=\"com.scanner.\(name)\"", "-DFIX_LAUNCH=1", "-DREAD_TARGET=\"\(target)\"", TestPaths.fixtures + "/reads_file.c",
            ])
        }
        let listed = try work.list()
        #expect(listed.status == 0, "\(listed.output)\n\(listed.errorOutput)")
        let verdicts = listed.errorOutput.split(separator: "\n").compactMap { line in
            line.range(of: "read ").map { String(line[$0.lowerBound...]) }
        }
        #expect(verdicts.sorted() == ["read allowed", "read blocked 13", "read blocked 13"], "\(listed.errorOutput)")
    }

    /// Shares: consecutive libraries with one grant, at most ``WorkerScanner/shareSize`` long; one
    /// library each when the grant limits CPU time or memory.
    @Test func sharesFollowTheGrants() {
        var limited = SandboxGrant()
        limited.cpuSeconds = 5
        var writing = SandboxGrant()
        writing.write = ["/tmp/out"]
        let paths = (0..<70).map { "/p/l\($0).so" } + ["/p/limited1.so", "/p/limited2.so", "/p/w1.so", "/p/w2.so", "/p/l70.so"]
        let shares = WorkerScanner.shares(of: paths) { path in
            path.contains("limited") ? limited : path.contains("/w") ? writing : SandboxGrant()
        }
        #expect(shares.map(\.indices.count) == [32, 32, 6, 1, 1, 2, 1])
        #expect(shares.flatMap(\.indices) == Array(paths.indices))
        #expect(shares[3].grant == limited && shares[5].grant == writing)
    }
}
