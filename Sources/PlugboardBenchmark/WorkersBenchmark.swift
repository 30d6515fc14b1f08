/// What the plugin-worker part of a run measured.
struct WorkerResults {
    /// Dispatch in workers, in process and over the channel floor, per plugin count.
    let dispatch: [WorkerDispatchMeasurement]
    /// `plugboard run` start-up and memory, per library count and mode.
    let startup: [StartupMeasurement]
    /// Libraries `list` went over.
    let listLibraries: Int
    /// Best wall time of `plugboard list --plugin-dir DIR --json --no-cache` over them (cold: each scanned in a worker).
    let list: UInt64
    /// Best wall time of `plugboard list --plugin-dir DIR --json` right after a cold one (warm: from the scan cache).
    let listWarm: UInt64
    /// Best wall time of `plugboard list --plugin-dir EMPTY --json --no-cache` (process start-up, no cache read).
    let listStartup: UInt64

    /// The cold list time minus its start-up, never below zero.
    var listNet: UInt64 { list > listStartup ? list - listStartup : 0 }
    /// The warm list time minus its start-up, never below zero.
    var listWarmNet: UInt64 { listWarm > listStartup ? listWarm - listStartup : 0 }
}

/// Runs the plugin-worker part: dispatch against the channel floor, start-up and memory, list.
struct WorkersBenchmark {
    /// The amounts of work.
    let settings: BenchmarkSettings
    /// The `plugboard` CLI.
    let cli: String
    /// The `plugboard-worker` executable.
    let worker: String
    /// An empty directory, for the list start-up baseline.
    let emptyDirectory: String

    /// Measures every part; `directory(count)` is a directory of `count` libraries.
    func run(directory: (Int) throws -> String) throws -> WorkerResults {
        let dispatcher = WorkerDispatchBenchmark(worker: worker, targetNanoseconds: settings.targetNanoseconds,
                                                 repetitions: settings.repetitions)
        var dispatch: [WorkerDispatchMeasurement] = []
        for count in settings.dispatchCounts {
            Progress.say("dispatch in workers: \(count) plugins …")
            dispatch.append(try dispatcher.run(directory: try directory(count), count: count))
        }
        let starter = StartupBenchmark(cli: cli, repetitions: settings.repetitions)
        var startup: [StartupMeasurement] = []
        for count in settings.startupCounts {
            Progress.say("run start-up: \(count) libraries …")
            startup += try starter.run(directory: try directory(count), count: count)
        }
        let listLibraries = settings.startupCounts.max() ?? 0
        Progress.say("list: \(listLibraries) libraries …")
        let listDirectory = try directory(listLibraries)
        try Self.checkList(cli, listDirectory, count: listLibraries, cache: false)
        try Self.checkList(cli, listDirectory, count: listLibraries, cache: true)
        var best = (cold: UInt64.max, warm: UInt64.max, startup: UInt64.max)
        for _ in 0..<settings.repetitions {
            // Start-up without reading the cache; then cold, which rewrites the cache that warm reads.
            best.startup = min(best.startup, try LoadBenchmark.timeList(cli, emptyDirectory, cache: false))
            best.cold = min(best.cold, try LoadBenchmark.timeList(cli, listDirectory, cache: false))
            best.warm = min(best.warm, try LoadBenchmark.timeList(cli, listDirectory, cache: true))
        }
        return WorkerResults(dispatch: dispatch, startup: startup, listLibraries: listLibraries, list: best.cold,
                             listWarm: best.warm, listStartup: best.startup)
    }

    /// Throws unless `plugboard list --json` over `directory` lists `count` loaded libraries,
    /// all answered from the scan cache when `cache`, none of them without (`--no-cache`).
    private static func checkList(_ cli: String, _ directory: String, count: Int, cache: Bool) throws {
        let arguments = ["list", "--plugin-dir", directory, "--json"] + (cache ? [] : ["--no-cache"])
        let listing = try TimedRun(cli, arguments, captureOutput: true)
        /// How often `text` occurs in the listing.
        func occurrences(_ text: String) -> Int { listing.output.components(separatedBy: text).count - 1 }
        let loaded = occurrences("\"status\" : \"loaded\""), cached = occurrences("\"cached\" : true")
        guard listing.termination.succeeded, loaded == count, cached == (cache ? count : 0) else {
            throw BenchmarkError("\(cli) \(arguments.joined(separator: " ")): \(listing.termination), \(loaded) of \(count) "
                + "libraries loaded, \(cached) from the cache (expected \(cache ? count : 0))")
        }
    }
}
