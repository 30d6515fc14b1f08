import CBenchmarkBaseline
import Plugboard

/// The events whose dispatch is measured.
enum DispatchEvent: String, CaseIterable {
    /// `PluginHost.willFinishLaunching(options:)`: call all, AND, report with timing.
    case willFinishLaunching = "willFinishLaunching"
    /// `PluginHost.didReceiveMemoryWarning()`: broadcast, report with timing.
    case memoryWarning = "didReceiveMemoryWarning"
}

/// One dispatch result: both sides' best time per plugin per event.
struct DispatchMeasurement {
    /// The event.
    let event: DispatchEvent
    /// Loaded plugins, each taking part in the event.
    let plugins: Int
    /// Our dispatcher, ns per plugin per event (best of the repetitions).
    let ours: Double
    /// The C loop, ns per plugin per event (best of the repetitions).
    let c: Double
    /// The C loop that also reads the clock after each call (launch only).
    let cTimed: Double?
    /// Events per measurement of our side.
    let oursIterations: UInt64
    /// Events per measurement of the C side.
    let cIterations: UInt64
    /// The shortest single measurement, in ns (to show each lasted long enough).
    let shortestMeasurement: UInt64

    /// Ours divided by C.
    var ratio: Double { ours / c }
}

/// Measures the dispatch cost of `PluginHost` against the C baseline's loop
/// over the same vtables, for each plugin count.
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
        try verify(host: host, set: set, count: count)

        var durations = [UInt64](repeating: 0, count: count)
        let launch = try measure(.willFinishLaunching, count: count,
                                 ours: { Self.timeWillFinishLaunching(host, $0) },
                                 c: { pbb_set_will_finish_launching(set, $0, nil) },
                                 cTimed: { iterations in
                                     durations.withUnsafeMutableBufferPointer {
                                         pbb_set_will_finish_launching_timed(set, iterations, $0.baseAddress, nil)
                                     }
                                 })
        let memory = try measure(.memoryWarning, count: count,
                                 ours: { Self.timeMemoryWarning(host, $0) },
                                 c: { pbb_set_memory_warning(set, $0) },
                                 cTimed: nil)
        blackHole(durations)
        return [launch, memory]
    }

    /// Checks that one event of each side calls every plugin and answers true.
    private func verify(host: PluginHost, set: OpaquePointer, count: Int) throws {
        let report = host.willFinishLaunching(options: "{}")
        guard report.accepted == true, report.calls.count == count else {
            throw BenchmarkError("willFinishLaunching answered \(report.answer) with \(report.calls.count) calls, expected true with \(count)")
        }
        let memory = host.didReceiveMemoryWarning()
        guard memory.calls.count == count else {
            throw BenchmarkError("didReceiveMemoryWarning made \(memory.calls.count) calls, expected \(count)")
        }
        var answer = false
        _ = pbb_set_will_finish_launching(set, 1, &answer)
        guard answer else { throw BenchmarkError("the C loop's will_finish_launching answered false") }
    }

    /// Calibrates each side to the target duration, then measures the sides in
    /// turn (C, ours, C with clock) `repetitions` times and keeps each side's best.
    private func measure(_ event: DispatchEvent, count: Int, ours: (UInt64) -> UInt64, c: (UInt64) -> UInt64,
                         cTimed: ((UInt64) -> UInt64)?) throws -> DispatchMeasurement {
        let oursIterations = calibrate(ours)
        let cIterations = calibrate(c)
        let cTimedIterations = cTimed.map { calibrate($0) } ?? 0
        var best = (ours: UInt64.max, c: UInt64.max, cTimed: UInt64.max)
        var shortest = UInt64.max
        for _ in 0..<repetitions {
            let cElapsed = c(cIterations)
            let oursElapsed = ours(oursIterations)
            best.c = min(best.c, cElapsed)
            best.ours = min(best.ours, oursElapsed)
            shortest = min(shortest, cElapsed, oursElapsed)
            if let cTimed {
                let elapsed = cTimed(cTimedIterations)
                best.cTimed = min(best.cTimed, elapsed)
                shortest = min(shortest, elapsed)
            }
        }
        /// Nanoseconds per plugin per event.
        func perPluginPerEvent(_ elapsed: UInt64, _ iterations: UInt64) -> Double {
            Double(elapsed) / Double(iterations) / Double(count)
        }
        return DispatchMeasurement(
            event: event, plugins: count,
            ours: perPluginPerEvent(best.ours, oursIterations),
            c: perPluginPerEvent(best.c, cIterations),
            cTimed: cTimed == nil ? nil : perPluginPerEvent(best.cTimed, cTimedIterations),
            oursIterations: oursIterations, cIterations: cIterations, shortestMeasurement: shortest)
    }

    /// An iteration count for which `body` takes at least the target duration
    /// (with a 25 % margin against noise).
    private func calibrate(_ body: (UInt64) -> UInt64) -> UInt64 {
        var iterations: UInt64 = 1
        while true {
            let elapsed = max(body(iterations), 1)
            if elapsed >= targetNanoseconds / 8 || iterations >= 1 << 40 {
                let scaled = Double(iterations) * Double(targetNanoseconds) * 1.25 / Double(elapsed)
                return max(iterations, UInt64(scaled.rounded(.up)))
            }
            iterations *= 4
        }
    }

    /// Times `iterations` calls of `willFinishLaunching(options: "{}")`.
    @inline(never)
    static func timeWillFinishLaunching(_ host: PluginHost, _ iterations: UInt64) -> UInt64 {
        var accepted = true
        let start = Clock.now()
        for _ in 0..<iterations {
            accepted = (host.willFinishLaunching(options: "{}").accepted ?? false) && accepted
        }
        let elapsed = Clock.now() &- start
        blackHole(accepted)
        return elapsed
    }

    /// Times `iterations` calls of `didReceiveMemoryWarning()`.
    @inline(never)
    static func timeMemoryWarning(_ host: PluginHost, _ iterations: UInt64) -> UInt64 {
        var calls = 0
        let start = Clock.now()
        for _ in 0..<iterations {
            calls &+= host.didReceiveMemoryWarning().calls.count
        }
        let elapsed = Clock.now() &- start
        blackHole(calls)
        return elapsed
    }
}
