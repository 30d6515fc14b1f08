import Foundation
import Glibc
import Plugboard
import Testing

/// A plugin directory with its own scan cache directory, whose libraries count their
/// loads in marker files (the hostile fixture's `LOAD_MARKER`): a cache hit loads nothing.
struct ScanCacheWorkspace {
    let workspace: Workspace

    init(_ label: String) throws {
        workspace = try Workspace("cache-" + label)
        try FileManager.default.createDirectory(atPath: workspace.root.file("markers"), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: ["libraries": ["*": ["write": [workspace.root.file("markers")]]]])
            .write(to: URL(fileURLWithPath: workspace.root.file("grants.json")))
    }

    /// The policy option that lets every library's sandboxed worker write its load marker.
    var grants: [String] { ["--policy", workspace.root.file("grants.json")] }

    /// The directory `PLUGBOARD_CACHE_DIR` names for this workspace's commands.
    var cacheDirectory: String { workspace.root.file("cache") }
    var cacheFile: String { cacheDirectory + "/scan-cache" }

    /// Builds a well-behaved hostile fixture `name.so` (plugin id `com.cache.name` unless
    /// `id`), plus `definitions`, into the plugin directory (or `directory`), dated a minute
    /// ago like an installed library (a file changed within ``ScanCache/racyWindow`` of its
    /// scan is scanned again).
    @discardableResult
    func library(_ name: String, id: String? = nil, _ definitions: [String] = [], in directory: String? = nil) throws -> String {
        let path = try PluginCompiler.hostile(name + ".so", in: directory ?? workspace.plugins,
                                              ["LOAD_MARKER=\"\(marker(name))\"", "HOSTILE_ID=\"\(id ?? "com.cache." + name)\""] + definitions)
        try FileChange.setModificationTime(path, FileChange.now(plus: -60))
        return path
    }

    /// How many times the library `name` was loaded (by any process).
    func loads(_ name: String) -> Int {
        loaders(name).count
    }

    /// The process that made each load of the library `name`, in order.
    func loaders(_ name: String) -> [String] {
        ((try? String(contentsOfFile: marker(name), encoding: .utf8)) ?? "").split(separator: "\n").map { String($0.dropFirst("loaded ".count)) }
    }

    /// `plugboard list --json` over the plugin directory (or `directory`) with this workspace's cache.
    func list(_ extra: [String] = [], directory: String? = nil) throws -> ProcessResult {
        try CLI.run(["list", "--plugin-dir", directory ?? workspace.plugins, "--json"] + grants + extra,
                    environment: ["PLUGBOARD_CACHE_DIR": cacheDirectory])
    }

    /// Each listed library's `cached`, by file name; a library without it fails the test.
    func cached(_ result: ProcessResult) throws -> [String: Bool] {
        var cached: [String: Bool] = [:]
        for library in try CLI.libraries(result) {
            let path = try #require(library.string("path"))
            cached[URL(fileURLWithPath: path).lastPathComponent] = try #require(library["cached"] as? Bool, "\(library)")
        }
        return cached
    }

    /// The cache file read through the embedding API; it must read without a note.
    func readCache() throws -> ScanCache {
        let cache = ScanCache(location: try ScanCacheLocation(directory: cacheDirectory))
        #expect(cache.notes.isEmpty, "\(cache.notes)")
        return cache
    }

    /// Writes `contents` as the cache file (creating its directory).
    func write(cache contents: [UInt8]) throws {
        try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        try Data(contents).write(to: URL(fileURLWithPath: cacheFile))
    }

    func remove() { workspace.remove() }

    private func marker(_ name: String) -> String { workspace.root.file("markers/" + name + ".loads") }
}

/// File changes that each alter one part of a scan cache key.
enum FileChange {
    /// The modification time of `path`.
    static func modificationTime(_ path: String) throws -> timespec {
        var info = stat()
        guard stat(path, &info) == 0 else { throw TestFailure("stat \(path): \(String(cString: strerror(errno)))") }
        return info.st_mtim
    }

    /// Sets the modification (and access) time of `path`.
    static func setModificationTime(_ path: String, _ time: timespec) throws {
        let times = [time, time]
        guard utimensat(AT_FDCWD, path, times, 0) == 0 else { throw TestFailure("utimensat \(path): \(String(cString: strerror(errno)))") }
    }

    /// Replaces `path` by a copy of itself (a new inode), same size and modification time.
    static func replaceKeepingSizeAndTime(_ path: String) throws {
        let time = try modificationTime(path)
        let copy = path + ".new"
        try Data(contentsOf: URL(fileURLWithPath: path)).write(to: URL(fileURLWithPath: copy))
        guard chmod(copy, 0o755) == 0 else { throw TestFailure("chmod \(copy) failed") }
        try setModificationTime(copy, time)
        guard rename(copy, path) == 0 else { throw TestFailure("rename \(copy): \(String(cString: strerror(errno)))") }
    }

    /// Appends one byte to `path`, keeping its modification time (and inode).
    static func growKeepingTime(_ path: String) throws {
        let time = try modificationTime(path)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        try setModificationTime(path, time)
    }

    /// Writes the bytes of `path` over themselves in place (its inode, size and modification time
    /// all kept, as `rsync --inplace -t` or `cp -p` onto it would): only its change time moves.
    static func rewriteKeepingSizeAndTime(_ path: String) throws {
        let time = try modificationTime(path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: bytes)
        try handle.close()
        try setModificationTime(path, time)
    }

    /// The current time plus `seconds`.
    static func now(plus seconds: Int) -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        time.tv_sec += seconds
        return time
    }

    /// Sets the modification time of `path` one second later (what `touch` does to an old file).
    static func touch(_ path: String) throws {
        var time = try modificationTime(path)
        time.tv_sec += 1
        try setModificationTime(path, time)
    }
}
