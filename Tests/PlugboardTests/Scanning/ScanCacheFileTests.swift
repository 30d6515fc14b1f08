import Foundation
import Glibc
import Plugboard
import PlugboardChildProcess
import Testing

/// The cache file: where it is, and that a bad one, or one being written by several
/// hosts at once, is never a crash and never corrupt.
@Suite struct ScanCacheFileTests {
    enum BadCache: String, CaseIterable {
        case garbage, truncated, trailingBytes, foreignFormat, otherVersion, otherHostABI, empty
    }

    @Test(arguments: BadCache.allCases)
    func aBadCacheFileIsIgnoredAndRewritten(_ bad: BadCache) throws {
        let work = try ScanCacheWorkspace("bad-\(bad)")
        defer { work.remove() }
        try work.library("one")
        #expect(try work.list().status == 0)
        let valid = Array(try Data(contentsOf: URL(fileURLWithPath: work.cacheFile)))
        /// The valid file with the 4 bytes at `offset` (after the 8-byte magic: version, ABI major, minor) set to `value`.
        func patching(_ offset: Int, to value: UInt32) -> [UInt8] {
            var bytes = valid
            bytes.replaceSubrange(offset..<(offset + 4), with: withUnsafeBytes(of: value.littleEndian, Array.init))
            return bytes
        }
        let contents: [UInt8]
        switch bad {
        case .garbage: contents = Array("\u{0}\u{1}garbage{".utf8)
        case .truncated: contents = Array(valid.prefix(valid.count / 2))
        case .trailingBytes: contents = valid + [0]
        case .foreignFormat: contents = Array(#"{"format":"gst-registry"}"#.utf8)
        case .otherVersion: contents = patching(8, to: 99)
        case .otherHostABI: contents = patching(12, to: 7)
        case .empty: contents = []
        }
        #expect(contents != valid)
        try work.write(cache: contents)

        let result = try work.list()
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        #expect(try work.cached(result) == ["one.so": false])
        let notes = try #require(jsonObject(result.output)?["notes"] as? [String])
        #expect(notes.count == 1 && notes[0].contains("ignored, and rewritten") && notes[0].contains(work.cacheFile), "\(notes)")
        #expect(try work.readCache().entry(for: try ScanCacheKey(path: work.workspace.plugins + "/one.so")) != nil)
        #expect(try work.cached(try work.list()) == ["one.so": true])
    }

    @Test func aCacheThatCannotBeSavedIsANoteNotAFailure() throws {
        let work = try ScanCacheWorkspace("unsaveable")
        defer { work.remove() }
        try work.library("one")
        try work.workspace.root.write("file", "a file, not a directory")
        let cacheDirectory = work.workspace.root.file("file") + "/cache"

        let result = try CLI.run(["list", "--plugin-dir", work.workspace.plugins, "--json", "--cache-dir", cacheDirectory])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let notes = try #require(jsonObject(result.output)?["notes"] as? [String])
        #expect(notes.count == 1 && notes[0].contains("was not saved: cannot create the directory"), "\(notes)")

        let human = try CLI.run(["list", "--plugin-dir", work.workspace.plugins, "--cache-dir", cacheDirectory])
        #expect(human.status == 0)
        #expect(human.output.contains("note: the scan cache \(cacheDirectory)/scan-cache was not saved"), "\(human.output)")
    }

    @Test func aFIFOInPlaceOfTheCacheFileIsReplacedWithoutBlocking() throws {
        let work = try ScanCacheWorkspace("fifo")
        defer { work.remove() }
        try work.library("one")
        try FileManager.default.createDirectory(atPath: work.cacheDirectory, withIntermediateDirectories: true)
        guard mkfifo(work.cacheFile, 0o600) == 0 else { throw TestFailure("mkfifo failed") }

        let result = try work.list()
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let notes = try #require(jsonObject(result.output)?["notes"] as? [String])
        #expect(notes == ["the scan cache \(work.cacheFile) cannot be read (Invalid argument): ignored, and rewritten"])
        #expect(try work.cached(try work.list()) == ["one.so": true])
    }

    @Test func aDirectoryInPlaceOfTheCacheFileIsTwoNotes() throws {
        let work = try ScanCacheWorkspace("directory")
        defer { work.remove() }
        try work.library("one")
        try FileManager.default.createDirectory(atPath: work.cacheFile + "/inside", withIntermediateDirectories: true)

        let result = try work.list()
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let notes = try #require(jsonObject(result.output)?["notes"] as? [String])
        #expect(notes.count == 2 && notes[0].contains("cannot be read (Is a directory)") && notes[1].contains("was not saved: cannot rename"),
                "\(notes)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.cacheDirectory) == ["scan-cache"], "the temporary file was removed")
    }

    @Test func concurrentWritersNeverCorruptTheFile() throws {
        let work = try ScanCacheWorkspace("concurrent")
        defer { work.remove() }
        let directories = try (0..<4).map { index in
            let directory = work.workspace.root.file("plugins-\(index)")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            try work.library("lib\(index)", in: directory)
            try work.library("other\(index)", in: directory)
            return directory
        }
        var environment = TestPaths.hermeticEnvironment
        environment["PLUGBOARD_CACHE_DIR"] = work.cacheDirectory
        for round in 0..<8 {
            // --no-cache makes every process rewrite the file, all at about the same moment.
            let children = try directories.map { directory in
                try ChildProcess(CLI.binary(), ["list", "--plugin-dir", directory, "--json", "--no-cache"],
                                 environment: environment, input: .discard, output: .pipe, error: .discard)
            }
            for child in children {
                let finished = try child.collect()
                #expect(finished.termination == .exited(0), "round \(round): \(finished.termination)")
                #expect(jsonObject(String(decoding: finished.output, as: UTF8.self))?["notes"] as? [String] == [], "round \(round)")
            }
            let cache = try work.readCache()
            let remembered = try directories.flatMap { directory in
                try FileManager.default.contentsOfDirectory(atPath: directory).map { try ScanCacheKey(path: directory + "/" + $0) }
            }.filter { cache.entry(for: $0) != nil }
            #expect(!remembered.isEmpty, "round \(round): the last writer's libraries are in the cache")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: work.cacheDirectory)
        #expect(leftovers == ["scan-cache"], "temporary files left: \(leftovers)")
    }

    /// Two files whose names differ only in Unicode normalization are two entries, before a save
    /// and after it: the cache tells paths apart by their bytes.
    @Test func namesThatDifferOnlyInNormalizationAreTwoEntries() throws {
        let work = try ScanCacheWorkspace("normalization")
        defer { work.remove() }
        let files = ["caf\u{E9}.so", "cafe\u{301}.so"].map { work.workspace.plugins + "/" + $0 }
        for file in files {
            #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
            try FileChange.setModificationTime(file, FileChange.now(plus: -60))
        }
        let composed = try ScanCacheKey(path: files[0]), decomposed = try ScanCacheKey(path: files[1])
        #expect(composed.path == decomposed.path && !composed.path.utf8.elementsEqual(decomposed.path.utf8),
                "the test needs two names that are one `String` and two files")
        var cache = ScanCache(location: try ScanCacheLocation(directory: work.cacheDirectory))
        cache.recordCrash(LoadFailure(.`init`, "composed crashed"), for: composed)
        cache.recordCrash(LoadFailure(.`init`, "decomposed crashed"), for: decomposed)
        /// Whether `cache` keeps both entries, each under its own name.
        func expectBoth(in cache: ScanCache) {
            #expect(cache.paths.count == 2, "\(cache.paths)")
            for (key, word) in [(composed, "composed"), (decomposed, "decomposed")] {
                let message = cache.entry(for: key)?.report(at: key.path).failure?.message
                #expect(message?.hasPrefix(word) == true, "\(String(describing: message))")
            }
        }
        expectBoth(in: cache)
        cache.save()
        expectBoth(in: try work.readCache())
    }

    /// Two processes that opened the cache before either saved keep both their entries:
    /// a save merges what the other stored meanwhile for the paths it did not touch.
    @Test func savesSideBySideKeepEachOthersEntries() throws {
        let work = try ScanCacheWorkspace("side-by-side")
        defer { work.remove() }
        let first = try ScanCacheKey(path: try work.library("first"))
        let second = try ScanCacheKey(path: try work.library("second"))
        let location = try ScanCacheLocation(directory: work.cacheDirectory)
        var one = ScanCache(location: location)
        var other = ScanCache(location: location)
        one.recordCrash(LoadFailure(.`init`, "first crashed"), for: first)
        other.recordCrash(LoadFailure(.`init`, "second crashed"), for: second)
        one.save()
        other.save()
        var reread = try work.readCache()
        #expect(reread.entry(for: first) != nil && reread.entry(for: second) != nil, "\(reread.paths)")
        // A path one process forgot stays forgotten when another, which saw it but did not touch it, saves.
        reread.forget(first.path)
        reread.save()
        other.recordCrash(LoadFailure(.`init`, "second again"), for: second)
        other.save()
        #expect(try work.readCache().entry(for: first) == nil)
    }

    @Test func theCacheLivesUnderXDGCacheHomeByDefaultInAPrivateDirectory() throws {
        let work = try ScanCacheWorkspace("xdg")
        defer { work.remove() }
        try work.library("one")
        let cacheHome = work.workspace.root.file("xdg-cache")
        let environment = ["PLUGBOARD_CACHE_DIR": "", "XDG_CACHE_HOME": cacheHome]
        let result = try CLI.run(["list", "--plugin-dir", work.workspace.plugins, "--json"], environment: environment)
        #expect(result.status == 0)
        let file = cacheHome + "/plugboard/scan-cache"
        #expect(jsonObject(result.output)?.string("cacheFile") == file, "\(result.output)")
        var info = stat()
        #expect(stat(cacheHome + "/plugboard", &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(FileManager.default.fileExists(atPath: file))

        let moved = try CLI.run(["list", "--plugin-dir", work.workspace.plugins, "--json", "--cache-dir", work.cacheDirectory],
                                environment: environment)
        #expect(try work.cached(moved) == ["one.so": false], "--cache-dir moves the cache")
        #expect(FileManager.default.fileExists(atPath: work.cacheFile))
    }

    @Test(arguments: [(["--cache-dir", "relative/cache"], [:], "--cache-dir must be an absolute path, got \"relative/cache\""),
                      ([], ["PLUGBOARD_CACHE_DIR": "cache"], "PLUGBOARD_CACHE_DIR must be an absolute path, got \"cache\"")])
    func aRelativeCacheDirectoryIsAUsageError(_ arguments: [String], _ environment: [String: String], _ message: String) throws {
        for command in [["list"], ["inspect", "x.so"]] {
            let result = try CLI.run(command + arguments, environment: environment)
            #expect(result.status == 64)
            #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
        }
    }

    @Test func listHelpDescribesTheCache() throws {
        let help = try CLI.run(["list", "--help"])
        for words in ["--no-cache", "--cache-dir", "--retry-failed", "PLUGBOARD_CACHE_DIR", "XDG_CACHE_HOME", "(cached)"] {
            #expect(help.output.contains(words), "lacks \(words):\n\(help.output)")
        }
    }
}
