/// What the plugin-worker part of a run measured.
struct WorkerResults {
    /// Dispatch in workers, in process and over the channel floor, per plugin count.
    let dispatch: [WorkerDispatchMeasurement]
    /// `plugboard run` start-up and memory, per library count and mode.
    let startup: [StartupMeasurement]
    /// Libraries `list` went over.
    let listLibraries: Int
    /// Best wall time of `plugboard list --plugin-dir DIR --json` over them (cold: no scan cache).
    let list: UInt64
    /// Best wall time of the same over an empty directory (process start-up).
    let listStartup: UInt64

    /// The list time minus its start-up, never below zero.
    var listNet: UInt64 { list > listStartup ? list - listStartup : 0 }
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
        var best = (list: UInt64.max, startup: UInt64.max)
        for _ in 0..<settings.repetitions {
            best.list = min(best.list, try LoadBenchmark.timeList(cli, listDirectory))
            best.startup = min(best.startup, try LoadBenchmark.timeList(cli, emptyDirectory))
        }
        return WorkerResults(dispatch: dispatch, startup: startup, listLibraries: listLibraries, list: best.list,
                             listStartup: best.startup)
    }
}
