import CBenchmarkBaseline
import Plugboard

/// The events whose dispatch is measured.
enum DispatchEvent: String, CaseIterable {
    /// `PluginHost.willFinishLaunching(options:)`: call all, AND, report with timing.
    case willFinishLaunching = "willFinishLaunching"
    /// `PluginHost.didReceiveMemoryWarning()`: broadcast, report with timing.
    case memoryWarning = "didReceiveMemoryWarning"
}

/// One dispatch result: every side's best time per plugin per event.
struct DispatchMeasurement {
    /// The event.
    let event: DispatchEvent
    /// Loaded plugins, each taking part in the event.
    let plugins: Int
    /// The C loop, no clock read inside (best of the repetitions).
    let c: Double
    /// The C loop over a contiguous copy of the slots (as the host keeps them), no clock read inside.
    let cCopied: Double
    /// The C loop with two clock reads per event: the floor of ``CallTiming/perEvent``.
    let cPerEvent: Double
    /// The C loop with one clock read per call (and one per event): the floor of ``CallTiming/perCall``.
    let cPerCall: Double
    /// Our dispatcher with `timing: .perEvent`.
    let perEvent: Double
    /// Our dispatcher with `timing: .perCall` (the default).
    let perCall: Double
    /// The same, reading each report's `calls` (the array is built when read).
    let perCallReadingCalls: Double
    /// Events per measurement of our `.perEvent` side and of the C loop.
    let iterations: (perEvent: UInt64, c: UInt64)
    /// The shortest accepted measurement, in ns (each lasts at least the target).
    let shortestMeasurement: UInt64

    /// `.perEvent` divided by the C loop: the goal's ratio.
    var ratioPerEvent: Double { perEvent / c }
    /// `.perEvent` divided by the C loop over copied slots.
    var ratioPerEventCopied: Double { perEvent / cCopied }
    /// `.perCall` divided by the C loop.
    var ratioPerCall: Double { perCall / c }
    /// `.perEvent` divided by its floor, the C loop with two clock reads per event.
    var perEventOverFloor: Double { perEvent / cPerEvent }
    /// `.perCall` divided by its floor, the C loop with a clock read per call.
    var perCallOverFloor: Double { perCall / cPerCall }
}

/// Measures the dispatch cost of `PluginHost`, in both timing modes, against
/// the C baseline's loop over the same vtables, for each plugin count.
struct DispatchBenchmark {
    /// Each measurement lasts at least this long.
    let targetNanoseconds: UInt64
    /// Measurements per side; the best is kept.
    let repetitions: Int

    /// Loads `directory` into a host and into the C baseline, checks both see
    /// `count` plugins, and measures both events.
    func run(directory: String, count: Int) throws -> [DispatchMeasurement] {
        let host = PluginHost()
        defer { host.shutdown() }
        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [directory]))
        let failures = reports.filter { $0.status != .loaded }
        guard failures.isEmpty, host.plugins.count == count else {
            let reason = failures.first.map { "\($0.path): \($0.failure.map(\.description) ?? $0.status.rawValue)" } ?? ""
            throw BenchmarkError("the host loaded \(host.plugins.count) of \(count) plugins from \(directory) \(reason)")
        }
        var error = [CChar](repeating: 0, count: 512)
        guard let set = pbb_set_open_directory(directory, &error, error.count) else {
            throw BenchmarkError("the C baseline could not load \(directory): \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        defer { pbb_set_close(set) }
        guard pbb_set_plugin_count(set) == count else {
            throw BenchmarkError("the C baseline registered \(pbb_set_plugin_count(set)) of \(count) plugins")
        }
        for timing in [CallTiming.perCall, .perEvent] {
            host.timing = timing
            try verify(host: host, set: set, count: count)
        }

        var durations = [UInt64](repeating: 0, count: count)
        /// Our side with `timing`: the host is switched before each measurement.
        func ours(_ timing: CallTiming, readingCalls: Bool = false,
                  _ body: @escaping (PluginHost, UInt64, Bool) -> UInt64) -> (UInt64) -> UInt64 {
            { iterations in
                host.timing = timing
                return body(host, iterations, readingCalls)
            }
        }
        let launch = try measure(.willFinishLaunching, count: count, Sides(
            c: { pbb_set_will_finish_launching(set, $0, nil) },
            cCopied: { pbb_set_will_finish_launching_copied(set, $0, nil) },
            cPerEvent: { pbb_set_will_finish_launching_event_timed(set, $0, nil) },
            cPerCall: { iterations in
                durations.withUnsafeMutableBufferPointer {
                    pbb_set_will_finish_launching_timed(set, iterations, $0.baseAddress, nil)
                }
            },
            perEvent: ours(.perEvent, Self.timeWillFinishLaunching),
            perCall: ours(.perCall, Self.timeWillFinishLaunching),
            perCallReadingCalls: ours(.perCall, readingCalls: true, Self.timeWillFinishLaunching)))
        let memory = try measure(.memoryWarning, count: count, Sides(
            c: { pbb_set_memory_warning(set, $0) },
            cCopied: { pbb_set_memory_warning_copied(set, $0) },
            cPerEvent: { pbb_set_memory_warning_event_timed(set, $0) },
            cPerCall: { iterations in
                durations.withUnsafeMutableBufferPointer { pbb_set_memory_warning_timed(set, iterations, $0.baseAddress) }
            },
            perEvent: ours(.perEvent, Self.timeMemoryWarning),
            perCall: ours(.perCall, Self.timeMemoryWarning),
            perCallReadingCalls: ours(.perCall, readingCalls: true, Self.timeMemoryWarning)))
        blackHole(durations)
        host.timing = .perCall
        return [launch, memory]
    }

    /// Checks that one event of each side calls every plugin and answers true,
    /// and that the host times each call exactly when its timing says so.
    private func verify(host: PluginHost, set: OpaquePointer, count: Int) throws {
        let timed = host.timing == .perCall
        let report = host.willFinishLaunching(options: "{}")
        guard report.accepted == true, report.calls.count == count,
              report.calls.allSatisfy({ $0.answer == .bool(true) && ($0.nanoseconds != nil) == timed }) else {
            throw BenchmarkError("willFinishLaunching (\(host.timing)) answered \(report.answer) with \(report.calls.count) calls, expected true with \(count)")
        }
        let memory = host.didReceiveMemoryWarning()
        guard memory.calls.count == count,
              memory.calls.allSatisfy({ $0.answer == .returned && ($0.nanoseconds != nil) == timed }) else {
            throw BenchmarkError("didReceiveMemoryWarning (\(host.timing)) made \(memory.calls.count) calls, expected \(count)")
        }
        var answer = false
        _ = pbb_set_will_finish_launching(set, 1, &answer)
        guard answer else { throw BenchmarkError("the C loop's will_finish_launching answered false") }
        answer = false
        _ = pbb_set_will_finish_launching_copied(set, 1, &answer)
        guard answer else {
            throw BenchmarkError("the C loop over copied slots failed or answered false")
        }
    }

    /// The seven sides of one event: each runs the given number of events and returns the elapsed ns.
    struct Sides {
        /// The C loop.
        let c: (UInt64) -> UInt64
        /// The C loop over a copy of the slots.
        let cCopied: (UInt64) -> UInt64
        /// The C loop with two clock reads per event.
        let cPerEvent: (UInt64) -> UInt64
        /// The C loop with a clock read per call.
        let cPerCall: (UInt64) -> UInt64
        /// Our host with `timing: .perEvent`.
        let perEvent: (UInt64) -> UInt64
        /// Our host with `timing: .perCall`.
        let perCall: (UInt64) -> UInt64
        /// Our host with `timing: .perCall`, reading each report's `calls`.
        let perCallReadingCalls: (UInt64) -> UInt64
    }

    /// Calibrates each side to the target duration, then measures the sides in
    /// turn (C, C over copied slots, C with two clock reads per event, ours per
    /// event, C with a clock read per call, ours per call, ours per call reading the calls)
    /// `repetitions` times and keeps each side's best.
    private func measure(_ event: DispatchEvent, count: Int, _ sides: Sides) throws -> DispatchMeasurement {
        let bodies = [sides.c, sides.cCopied, sides.cPerEvent, sides.perEvent, sides.cPerCall, sides.perCall,
                      sides.perCallReadingCalls]
        let sampler = Sampler(targetNanoseconds: targetNanoseconds)
        var states = bodies.map { sampler.side($0) }
        for _ in 0..<repetitions {
            for index in bodies.indices { sampler.measureOnce(bodies[index], &states[index]) }
        }
        let perPlugin = Double(count)
        return DispatchMeasurement(
            event: event, plugins: count,
            c: states[0].best / perPlugin, cCopied: states[1].best / perPlugin, cPerEvent: states[2].best / perPlugin,
            cPerCall: states[4].best / perPlugin, perEvent: states[3].best / perPlugin, perCall: states[5].best / perPlugin,
            perCallReadingCalls: states[6].best / perPlugin,
            iterations: (states[3].iterations, states[0].iterations),
            shortestMeasurement: states.map(\.shortest).min() ?? 0)
    }

    /// Times `iterations` calls of `willFinishLaunching(options: "{}")`, using
    /// each report's answer and, when `readingCalls`, its `calls`.
    @inline(never)
    static func timeWillFinishLaunching(_ host: PluginHost, _ iterations: UInt64, readingCalls: Bool) -> UInt64 {
        var accepted = true
        var calls = 0
        let start = Clock.now()
        for _ in 0..<iterations {
            let report = host.willFinishLaunching(options: "{}")
            accepted = (report.accepted ?? false) && accepted
            if readingCalls { calls &+= report.calls.count }
        }
        let elapsed = Clock.now() &- start
        blackHole((accepted, calls))
        return elapsed
    }

    /// Times `iterations` calls of `didReceiveMemoryWarning()`, using each
    /// report's duration and, when `readingCalls`, its `calls`.
    @inline(never)
    static func timeMemoryWarning(_ host: PluginHost, _ iterations: UInt64, readingCalls: Bool) -> UInt64 {
        var total: UInt64 = 0
        var calls = 0
        let start = Clock.now()
        for _ in 0..<iterations {
            let report = host.didReceiveMemoryWarning()
            total &+= report.nanoseconds
            if readingCalls { calls &+= report.calls.count }
        }
        let elapsed = Clock.now() &- start
        blackHole((total, calls))
        return elapsed
    }
}
