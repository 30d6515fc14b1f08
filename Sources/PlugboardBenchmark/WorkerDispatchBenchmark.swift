import CBenchmarkBaseline
import Plugboard

/// One worker dispatch result: ns per plugin per `willFinishLaunching`, best of the repetitions.
struct WorkerDispatchMeasurement {
    /// Loaded plugins, one library each (so as many workers).
    let plugins: Int
    /// Our host, plugins in process (`timing: .perCall`, the default).
    let inProcess: Double
    /// Our host, each library in a worker (`.workers(worker:)`, `timing: .perCall`).
    let workers: Double
    /// The floor: one raw round trip per plugin over a socketpair to an echo process per plugin.
    let floor: Double
    /// The floor with the host's two thread handoffs per call (a reader thread and a semaphore).
    let floorHandoff: Double

    /// Workers divided by the floor: the goal's ratio.
    var ratio: Double { workers / floor }
    /// Workers divided by in process.
    var overInProcess: Double { workers / inProcess }
    /// The protocol's own cost per call: ours minus the floor, in ns.
    var protocolCost: Double { workers - floor }
    /// The two thread handoffs' cost per call, in ns.
    var handoffCost: Double { floorHandoff - floor }
}

/// Measures `willFinishLaunching` through plugins in workers against the same
/// plugins in process and against the channel floor.
struct WorkerDispatchBenchmark {
    /// The frame sizes of one `willFinishLaunching` call with options `{}` and of its
    /// answer (WORKER-PROTOCOL.md): length 4 + kind 1 + request id 8 + plugin 4 +
    /// event 1 + options 4 + 2 bytes; length 4 + kind 1 + request id 8 + answer 2 bytes.
    static let callFrameBytes = 24, answerFrameBytes = 15

    /// The `plugboard-worker` executable.
    let worker: String
    /// Each measurement lasts at least this long.
    let targetNanoseconds: UInt64
    /// Measurements per side; the best is kept.
    let repetitions: Int

    /// Loads `directory` (`count` libraries) in process and in workers, opens a floor
    /// of `count` echo processes, checks every side, and measures them interleaved; `eachRound`
    /// is given every round's own figures.
    func run(directory: String, count: Int,
             eachRound: (WorkerDispatchMeasurement) -> Void = { _ in }) throws -> WorkerDispatchMeasurement {
        let inProcess = try Self.host(.inProcess, directory: directory, count: count)
        defer { inProcess.shutdown() }
        let workers = try Self.host(.workers(worker: worker), directory: directory, count: count)
        defer { workers.shutdown() }
        var error = [CChar](repeating: 0, count: 512)
        guard let floor = pbb_floor_open(count, Self.callFrameBytes, Self.answerFrameBytes, &error, error.count) else {
            throw BenchmarkError("cannot open a channel floor of \(count) echo processes: "
                + String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { pbb_floor_close(floor) }
        guard pbb_floor_round_trips(floor, 1) > 0, pbb_floor_round_trips_handoff(floor, 1) > 0 else {
            throw BenchmarkError("the channel floor of \(count) echo processes failed its first round trip")
        }

        // A failed side reports the longest time, so that the sampler accepts it at once; the failure is thrown after.
        var failure: String?
        /// Our host's side; a round that does not call every plugin and answer true ends the measurement.
        func ours(_ host: PluginHost) -> (UInt64) -> UInt64 {
            { iterations in
                let start = Clock.now()
                for _ in 0..<iterations {
                    let report = host.willFinishLaunching(options: "{}")
                    guard report.accepted == true else {
                        failure = "willFinishLaunching answered \(report.answer) (\(host.failures.first?.message ?? "no failure reported"))"
                        break
                    }
                }
                return failure == nil ? max(Clock.now() &- start, 1) : .max
            }
        }
        /// A floor side; a failed channel ends the measurement.
        func floorSide(_ body: @escaping (OpaquePointer, UInt64) -> UInt64) -> (UInt64) -> UInt64 {
            { iterations in
                let elapsed = body(floor, iterations)
                if elapsed == 0 { failure = "an echo process of the channel floor failed" }
                return failure == nil ? max(elapsed, 1) : .max
            }
        }
        let bodies = [ours(inProcess), ours(workers), floorSide(pbb_floor_round_trips), floorSide(pbb_floor_round_trips_handoff)]
        let sampler = Sampler(targetNanoseconds: targetNanoseconds)
        var states = bodies.map { sampler.side($0) }
        let perPlugin = Double(count)
        for _ in 0..<repetitions {
            for index in bodies.indices { sampler.measureOnce(bodies[index], &states[index]) }
            if failure == nil {
                eachRound(WorkerDispatchMeasurement(plugins: count, inProcess: states[0].latest / perPlugin,
                                                    workers: states[1].latest / perPlugin, floor: states[2].latest / perPlugin,
                                                    floorHandoff: states[3].latest / perPlugin))
            }
        }
        if let failure { throw BenchmarkError("worker dispatch, \(count) plugins: \(failure)") }
        return WorkerDispatchMeasurement(plugins: count, inProcess: states[0].best / perPlugin,
                                         workers: states[1].best / perPlugin, floor: states[2].best / perPlugin,
                                         floorHandoff: states[3].best / perPlugin)
    }

    /// A host with `isolation` that loaded the `count` libraries of `directory`.
    private static func host(_ isolation: PluginIsolation, directory: String, count: Int) throws -> PluginHost {
        let host = PluginHost(isolation: isolation)
        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [directory]))
        do {
            try LoadBenchmark.check(reports, plugins: host.plugins.count, count: count, directory: directory)
        } catch {
            host.shutdown()
            throw error
        }
        return host
    }
}
