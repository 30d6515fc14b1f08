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
    /// The shortest accepted measurement, in ns (each lasts at least the target).
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

    /// One side of a comparison: its events per measurement and its best so far.
    private struct Side {
        /// Events per measurement; only grows.
        var iterations: UInt64
        /// The best ns per event of the measurements so far.
        var best = Double.infinity
        /// The shortest accepted measurement, in ns.
        var shortest = UInt64.max
    }

    /// Calibrates each side to the target duration, then measures the sides in
    /// turn (C, ours, C with clock) `repetitions` times and keeps each side's best.
    private func measure(_ event: DispatchEvent, count: Int, ours: (UInt64) -> UInt64, c: (UInt64) -> UInt64,
                         cTimed: ((UInt64) -> UInt64)?) throws -> DispatchMeasurement {
        var oursSide = Side(iterations: calibrate(ours))
        var cSide = Side(iterations: calibrate(c))
        var cTimedSide = Side(iterations: cTimed.map { calibrate($0) } ?? 0)
        for _ in 0..<repetitions {
            measureOnce(c, &cSide)
            measureOnce(ours, &oursSide)
            if let cTimed { measureOnce(cTimed, &cTimedSide) }
        }
        let perPlugin = Double(count)
        return DispatchMeasurement(
            event: event, plugins: count,
            ours: oursSide.best / perPlugin, c: cSide.best / perPlugin,
            cTimed: cTimed == nil ? nil : cTimedSide.best / perPlugin,
            oursIterations: oursSide.iterations, cIterations: cSide.iterations,
            shortestMeasurement: min(oursSide.shortest, cSide.shortest, cTimedSide.shortest))
    }

    /// One measurement of `body` that lasts at least the target duration: a
    /// shorter one (the calibration was thrown off by a stall) is discarded and
    /// repeated with more events.
    private func measureOnce(_ body: (UInt64) -> UInt64, _ side: inout Side) {
        while true {
            let elapsed = body(side.iterations)
            if elapsed >= targetNanoseconds {
                side.best = min(side.best, Double(elapsed) / Double(side.iterations))
                side.shortest = min(side.shortest, elapsed)
                return
            }
            side.iterations = grown(side.iterations, elapsed: elapsed)
        }
    }

    /// An iteration count for which `body` should take the target duration
    /// (with a 25 % margin against noise); `measureOnce` enforces it.
    private func calibrate(_ body: (UInt64) -> UInt64) -> UInt64 {
        var iterations: UInt64 = 1
        while true {
            let elapsed = body(iterations)
            if elapsed >= targetNanoseconds / 8 || iterations >= 1 << 40 {
                return grown(iterations, elapsed: elapsed)
            }
            iterations *= 4
        }
    }

    /// `iterations` scaled so that `elapsed` would reach the target with a 25 % margin; never less than before.
    private func grown(_ iterations: UInt64, elapsed: UInt64) -> UInt64 {
        let scaled = Double(iterations) * Double(targetNanoseconds) * 1.25 / Double(max(elapsed, 1))
        let capped = min(scaled.rounded(.up), Double(UInt64(1) << 40))
        return max(iterations + 1, UInt64(capped))
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
