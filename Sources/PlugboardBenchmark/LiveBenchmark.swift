import Foundation
import Glibc
import Plugboard
import PlugboardChildProcess
import PlugboardFiles
import Synchronization

/// `--live`: plugins that reload in a running host, through the embedding API with workers.
///
/// - Reload: from a new version's file renamed into place to its first answer (``PluginHost/applyChanges(in:trust:)``,
///   then an open-url the new version handles), for a C plugin and a Swift plugin, against the same
///   library's load into a fresh worker (``PluginHost/loadLibrary(at:trust:placement:)``): the ratio is
///   what the handover (the old plugins' states, the new ones' restore and catch-up, the switch, the old
///   worker's `deinit`) adds to a load. With `plugboard run --watch`, the folder's quiet time
///   (``PluginFolderWatcher/quietTime``) comes first.
/// - Exactness: 100 reloads of a counting plugin with 10 events before and after each; every event must
///   be answered once and the count carried across each reload (events lost or answered twice: 0).
/// - Watching: `plugboard run --isolation none` over 200 and 20,200 events from a file, with and without
///   `--watch`, interleaved: the CPU time (user + system) the run used, and what the watcher adds per
///   event (the difference of the differences, over the 20,000 events more). CPU time, not wall time:
///   the kernel may wait milliseconds for a grace period when an inotify descriptor is closed, at the
///   end of a watching run, and that wait would be spread over the events.
///
/// The C plugin is the tests' live counter (Tests/PlugboardTests/Fixtures/live_counter.c: it counts, so
/// the exactness check can see a lost or repeated event); the Swift plugin is the benchmark's own.
struct LiveBenchmark {
    let rounds: Int
    let reloads: Int
    let packageRoot: String
    let worker: String
    let cli: String
    let swiftLibrary: String
    let root: String

    /// Median nanoseconds of a load and of a reload, for one language.
    struct Reload {
        let language: String
        let load: UInt64
        let reload: UInt64
    }

    /// Runs every part and prints the BENCHMARKS.md rows.
    func run() throws {
        try Files.remove(root)
        try Files.makeDirectory(root)
        defer { try? Files.remove(root) }
        let source = packageRoot + "/Tests/PlugboardTests/Fixtures/live_counter.c"
        let versions = try (1...2).map { version in
            let output = root + "/counter-\(version).so"
            try Files.build("cc", ["-std=c11", "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-I", packageRoot + "/include",
                                   "-DLIVE_VERSION=\"\(version).0\"", source, "-o", output], log: root + "/build.log")
            return output
        }
        Progress.say("live: reloading a C and a Swift plugin …")
        let c = try reload("C", versions: versions, url: "myapp://x")
        let swift = try reload("Swift", versions: [swiftLibrary, swiftLibrary], url: "benchapp://x")
        Progress.say("live: \(reloads) reloads of a counting plugin under events …")
        let (events, wrong) = try exactness(versions: versions)
        Progress.say("live: 200 and 20,200 events with and without --watch …")
        let watch = try watching(library: versions[0])
        print(Self.markdown([c, swift], events: events, wrong: wrong, reloads: reloads, watch: watch, rounds: rounds))
    }

    /// A host with workers whose plugin folder is `folder`, its states in a container beside it.
    private func host(_ folder: String) throws -> (PluginHost, SavedStateStore) {
        let host = PluginHost(isolation: .workers(worker: worker))
        let store = SavedStateStore(facade: FileFacade(container: try Container(rootPath: folder + ".container")))
        return (host, store)
    }

    /// Median load of `versions[0]` in a fresh worker, and median reload (rename into place → first answer).
    private func reload(_ language: String, versions: [String], url: String) throws -> Reload {
        let folder = root + "/reload-" + language
        try Files.makeDirectory(folder)
        let target = folder + "/liblive.so"
        try Files.copy(versions[0], to: target)
        var loads: [UInt64] = []
        var reloadTimes: [UInt64] = []
        let (host, store) = try host(folder)
        defer { host.shutdown() }
        let searchPath = PluginSearchPath(explicit: [folder])
        guard host.loadPlugins(from: searchPath).allSatisfy({ $0.status == .loaded }) else {
            throw BenchmarkError("live: \(language) plugin did not load")
        }
        _ = host.restoreState(from: store)
        host.willFinishLaunching()
        host.didFinishLaunching()
        for round in 0..<rounds {
            let fresh = PluginHost(isolation: .workers(worker: worker))
            let start = Clock.now()
            let loaded = fresh.loadLibrary(at: versions[round % 2], trust: .allowInsecure)
            loads.append(Clock.now() &- start)
            fresh.shutdown()
            guard loaded.status == .loaded else { throw BenchmarkError("live: \(language) plugin did not load") }

            try Files.copy(versions[(round + 1) % 2], to: target + ".new")
            try rename(target + ".new", to: target)
            let placed = Clock.now()
            let changes = host.applyChanges(in: searchPath)
            let answer = host.open(url: url)
            reloadTimes.append(Clock.now() &- placed)
            guard changes.map(\.kind) == [.reloaded], answer.accepted == true else {
                throw BenchmarkError("live: the \(language) reload did not take: \(changes.map(\.sentence))")
            }
        }
        return Reload(language: language, load: loads.median, reload: reloadTimes.median)
    }

    /// `reloads` reloads of the counter with 10 events before each: the events answered, and how many
    /// counts were not the next one (lost or repeated).
    private func exactness(versions: [String]) throws -> (events: Int, wrong: Int) {
        let folder = root + "/exact"
        try Files.makeDirectory(folder)
        let target = folder + "/liblive.so"
        try Files.copy(versions[0], to: target)
        let counts = Counts()
        let host = PluginHost(isolation: .workers(worker: worker)) { record in
            if record.message.hasPrefix("count "), let number = record.message.split(separator: " ").dropFirst().first {
                counts.append(Int(number) ?? -1)
            }
        }
        defer { host.shutdown() }
        let searchPath = PluginSearchPath(explicit: [folder])
        _ = host.loadPlugins(from: searchPath)
        host.willFinishLaunching()
        host.didFinishLaunching()
        var events = 0
        for round in 0..<reloads {
            for _ in 0..<10 where host.open(url: "myapp://x").accepted == true { events += 1 }
            try Files.copy(versions[(round + 1) % 2], to: target + ".new")
            try rename(target + ".new", to: target)
            guard host.applyChanges(in: searchPath).map(\.kind) == [.reloaded] else {
                throw BenchmarkError("live: reload \(round + 1) did not take")
            }
        }
        for _ in 0..<10 where host.open(url: "myapp://x").accepted == true { events += 1 }
        let seen = counts.all
        let wrong = zip(seen, 1...).filter { $0 != $1 }.count + abs(seen.count - events)
        return (events, wrong)
    }

    /// Median CPU times of `plugboard run --isolation none`, without and with `--watch`, over 200 and
    /// 20,200 memory warnings (each events file ends with will-terminate, so the watching run ends too).
    struct Watching {
        let plainShort: UInt64
        let plainLong: UInt64
        let watchedShort: UInt64
        let watchedLong: UInt64

        /// What watching adds per event: the difference of the differences, over the 20,000 events more.
        var perEvent: Double {
            (Double(watchedLong) - Double(watchedShort) - (Double(plainLong) - Double(plainShort))) / 20_000
        }
    }

    /// Measures ``Watching``, the four runs interleaved in each round.
    private func watching(library: String) throws -> Watching {
        let folder = root + "/watch"
        try Files.makeDirectory(folder)
        try Files.copy(library, to: folder + "/liblive.so")
        var times: [[UInt64]] = [[], [], [], []]
        for round in 0..<rounds {
            for (index, (events, watch)) in [(200, false), (20_200, false), (200, true), (20_200, true)].enumerated() {
                let file = root + "/events-\(events).jsonl"
                if round == 0 {
                    try Files.write(String(repeating: "{\"event\":\"memory-warning\"}\n", count: events)
                                    + "{\"event\":\"will-terminate\"}\n", to: file)
                }
                times[index].append(try timedRun(["run", "--isolation", "none", "--plugin-dir", folder, "--container",
                                                  root + "/watch.container", "--events", file] + (watch ? ["--watch"] : [])))
            }
        }
        return Watching(plainShort: times[0].median, plainLong: times[1].median, watchedShort: times[2].median,
                        watchedLong: times[3].median)
    }

    /// The CPU time (user + system, nanoseconds) of `plugboard arguments…`, its report discarded.
    private func timedRun(_ arguments: [String]) throws -> UInt64 {
        let before = Self.childrenCPU()
        let child = try ChildProcess(cli, arguments, environment: ProcessInfo.processInfo.environment,
                                     input: .discard, output: .discard, error: .discard)
        guard case .exited(0) = try child.wait() else { throw BenchmarkError("live: plugboard \(arguments) failed") }
        return Self.childrenCPU() &- before
    }

    /// The CPU time of every child reaped so far, in nanoseconds.
    private static func childrenCPU() -> UInt64 {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        let microseconds = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + usage.ru_utime.tv_usec + usage.ru_stime.tv_usec
        return UInt64(max(0, microseconds)) * 1_000
    }

    /// The BENCHMARKS.md rows.
    static func markdown(_ reloads: [Reload], events: Int, wrong: Int, reloads count: Int, watch: Watching, rounds: Int) -> String {
        var lines = ["| plugin | load into a fresh worker | reload: file in place → new version answers | ratio |",
                     "|---|---|---|---|"]
        for row in reloads {
            lines.append("| \(row.language) | \(DurationText.of(nanoseconds: row.load)) | \(DurationText.of(nanoseconds: row.reload)) | "
                         + Format.fixed(Double(row.reload) / Double(max(1, row.load)), 2) + "× |")
        }
        lines.append("")
        lines.append("\(count) reloads under events: \(events) events answered, \(wrong) lost or answered twice.")
        lines.append("")
        lines.append("| `run --isolation none`, CPU time, median of \(rounds) | 200 events | 20,200 events |")
        lines.append("|---|---|---|")
        lines.append("| without --watch | \(DurationText.of(nanoseconds: watch.plainShort)) | \(DurationText.of(nanoseconds: watch.plainLong)) |")
        lines.append("| with --watch | \(DurationText.of(nanoseconds: watch.watchedShort)) | \(DurationText.of(nanoseconds: watch.watchedLong)) |")
        lines.append("")
        lines.append("Watching adds \(Format.fixed(watch.perEvent, 1)) ns of CPU per event (the difference of the differences over "
                     + "20,000 events; CPU time has a resolution of 1 µs per run) and "
                     + "\(DurationText.of(nanoseconds: watch.watchedShort &- min(watch.watchedShort, watch.plainShort))) once per run.")
        return lines.joined(separator: "\n")
    }

    /// Renames `source` to `target`, replacing it: how a new version is put in place.
    private func rename(_ source: String, to target: String) throws {
        guard Glibc.rename(source, target) == 0 else { throw BenchmarkError("cannot rename \(source) to \(target)") }
    }

    /// The counts the counter logged, from its worker's thread.
    private final class Counts: Sendable {
        private let values = Mutex<[Int]>([])
        func append(_ value: Int) { values.withLock { $0.append(value) } }
        var all: [Int] { values.withLock { $0 } }
    }
}
