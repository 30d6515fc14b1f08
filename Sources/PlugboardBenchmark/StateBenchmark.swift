import Foundation
import Glibc
import Plugboard
import PlugboardFiles

/// `--state`: saving and restoring the saved state of 100 plugins with 1 KiB each, through
/// ``PluginHost/saveState(to:)`` and ``PluginHost/restoreState(from:)`` (the embedding API, Swift
/// plugins in code: the host's own cost, no plugin code to speak of), against a baseline that
/// writes and reads the same 100 files with plain system calls in a loop. The baseline's writes
/// are as durable as ours (temporary file, `fsync`, `rename`, `fsync` of the folder), so the ratio
/// is the cost of the facade, the file format and the checksum; the run also prints the baseline
/// without `fsync` to show what the durability itself costs.
enum StateBenchmark {
    static let plugins = 100
    static let stateBytes = 1024

    /// A plugin whose state is a fixed 1 KiB.
    final class Keeper: SavedStatePlugin {
        let descriptor: PluginDescriptor
        var state: [UInt8]

        init(_ index: Int) throws {
            descriptor = PluginDescriptor(id: try PluginID(validating: "com.bench.state-\(index)"), version: "1.0")
            state = (0..<StateBenchmark.stateBytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
        }

        func saveState() -> [UInt8]? { state }

        func restoreState(_ restored: [UInt8], savedVersion: String) -> Bool {
            state = restored
            return true
        }
    }

    /// Median nanoseconds of one round (all 100 plugins) of each side.
    struct Result {
        let save: UInt64
        let restore: UInt64
        let baselineWrite: UInt64
        let baselineRead: UInt64
        let baselineWriteWithoutSync: UInt64
    }

    /// Runs `rounds` rounds of each side in a fresh folder under `$TMPDIR` and prints the rows.
    static func run(quick: Bool) throws {
        let rounds = quick ? 5 : 31
        let root = NSTemporaryDirectory() + "/plugboard-state-bench-\(getpid())"
        try? FileManager.default.removeItem(atPath: root)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let facade = FileFacade(container: try Container(rootPath: root + "/container"))
        try facade.container.createDirectories()
        let store = SavedStateStore(facade: facade)
        let host = PluginHost()
        defer { host.shutdown() }
        for index in 0..<plugins { try host.register(try Keeper(index)) }

        let folder = root + "/baseline"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let contents = (0..<plugins).map { index in
            SavedStateFile(pluginID: "com.bench.state-\(index)", pluginVersion: "1.0", savedAtNanoseconds: 0,
                           state: [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: stateBytes)).encoded()
        }
        // Each round runs both sides back to back, so that both meet the same load on the disk
        // (an fsync's time varies by an order of magnitude on a shared machine).
        var saves: [UInt64] = [], restores: [UInt64] = []
        var writes: [UInt64] = [], reads: [UInt64] = [], unsynced: [UInt64] = []
        for _ in 0..<rounds {
            saves.append(try timed(.saved) { host.saveState(to: store) })
            writes.append(try baselineWrite(contents, into: folder, sync: true))
            restores.append(try timed(.restored) { host.restoreState(from: store) })
            reads.append(try baselineRead(count: contents.count, from: folder))
            unsynced.append(try baselineWrite(contents, into: folder, sync: false))
        }
        let result = Result(save: saves.median, restore: restores.median, baselineWrite: writes.median,
                            baselineRead: reads.median, baselineWriteWithoutSync: unsynced.median)
        print(table(result, rounds: rounds))
    }

    /// The BENCHMARKS.md rows.
    static func table(_ result: Result, rounds: Int) -> String {
        func row(_ name: String, _ ours: UInt64, _ baseline: UInt64) -> String {
            "| \(name) | \(Format.milliseconds(ours)) ms | \(Format.milliseconds(baseline)) ms | \(Format.ratio(Double(ours) / Double(baseline))) |"
        }
        return """
            Saved state, \(plugins) plugins × \(stateBytes) B, median of \(rounds) rounds:

            | operation | ours | baseline (plain system calls) | ratio |
            |---|---|---|---|
            \(row("save (write, fsync, rename, fsync folder)", result.save, result.baselineWrite))
            \(row("restore (read, check)", result.restore, result.baselineRead))

            Baseline write without fsync: \(Format.milliseconds(result.baselineWriteWithoutSync)) ms.
            """
    }

    /// Nanoseconds `body` took; an error unless every plugin's outcome is `expected`.
    private static func timed(_ expected: SavedStateReport.Outcome, _ body: () -> SavedStateReport) throws -> UInt64 {
        let start = Clock.now()
        let report = body()
        let elapsed = Clock.now() &- start
        guard report.entries.count == plugins, report.entries.allSatisfy({ $0.outcome == expected }) else {
            throw BenchmarkError("\(report.operation): \(report.entries.first { $0.outcome != expected }?.warning ?? "a plugin is missing")")
        }
        return elapsed
    }

    /// Writes each file as the facade does: a temporary file, `fsync` (when `sync`), `rename`, and
    /// one `fsync` of the folder per file (when `sync`).
    private static func baselineWrite(_ contents: [[UInt8]], into folder: String, sync: Bool) throws -> UInt64 {
        let start = Clock.now()
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw BenchmarkError("cannot open \(folder)") }
        defer { close(directory) }
        for (index, bytes) in contents.enumerated() {
            let name = "p\(index).state", temporary = ".tmp-\(index)"
            let file = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            guard file >= 0 else { throw BenchmarkError("cannot create \(folder)/\(temporary)") }
            let written = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
            if sync { fsync(file) }
            close(file)
            guard written == bytes.count, renameat(directory, temporary, directory, name) == 0 else {
                throw BenchmarkError("cannot write \(folder)/\(name)")
            }
            if sync { fsync(directory) }
        }
        return Clock.now() &- start
    }

    /// Reads every file back whole.
    private static func baselineRead(count: Int, from folder: String) throws -> UInt64 {
        let start = Clock.now()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        for index in 0..<count {
            let file = open(folder + "/p\(index).state", O_RDONLY | O_CLOEXEC)
            guard file >= 0 else { throw BenchmarkError("cannot open \(folder)/p\(index).state") }
            let read = buffer.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress, $0.count) }
            close(file)
            guard read > stateBytes else { throw BenchmarkError("short read of \(folder)/p\(index).state") }
        }
        return Clock.now() &- start
    }
}
