import Foundation
import PlugboardChildProcess

/// One start-up result: `plugboard run` over `libraries` libraries in one isolation mode.
struct StartupMeasurement {
    /// Libraries (one plugin each) in the directory.
    let libraries: Int
    /// `--isolation` value: `none` or `process`.
    let isolation: String
    /// Best wall time from just before the spawn to the did-finish-launching report line, in ns.
    let nanoseconds: UInt64
    /// The host and its workers at that point, in the run with the most resident memory serving.
    let memory: ProcessMemory
    /// The host and its workers serving: idle long enough for each worker to give back what starting
    /// touched, then after one event to every plugin; the run with the most resident memory so.
    let serving: ProcessMemory
}

/// Measures `plugboard run` from exec to "launched": the CLI runs with `--json`
/// and `--events -` on a pipe held open, so it waits for events after launching;
/// the time is taken when its did-finish-launching line arrives, the resident
/// memory of it and its workers is read at that moment and again serving (after
/// ``servingPause``, then a memory warning to every plugin), and then its standard
/// input is closed so that it terminates.
struct StartupBenchmark {
    /// How long the run is left idle before the serving measure: longer than a worker waits, idle,
    /// before it gives back the pages that starting and loading touched (`ResidentPages.idleDelay`, 1 s).
    static let servingPause: TimeInterval = 1.5

    /// The `plugboard` CLI.
    let cli: String
    /// Runs per mode and count; the best time is kept.
    let repetitions: Int

    /// Measures `count` libraries of `directory` in both modes, interleaved.
    func run(directory: String, count: Int) throws -> [StartupMeasurement] {
        let modes = ["none", "process"]
        let none = ProcessMemory(processes: 0, rss: 0, pss: 0)
        var best = modes.map { _ in (time: UInt64.max, memory: none, serving: none) }
        for _ in 0..<repetitions {
            for (index, mode) in modes.enumerated() {
                let run = try once(directory: directory, count: count, isolation: mode)
                best[index].time = min(best[index].time, run.time)
                if run.serving.rss > best[index].serving.rss { (best[index].memory, best[index].serving) = (run.memory, run.serving) }
            }
        }
        return modes.indices.map {
            StartupMeasurement(libraries: count, isolation: modes[$0], nanoseconds: best[$0].time, memory: best[$0].memory,
                               serving: best[$0].serving)
        }
    }

    /// One run: the time to the did-finish-launching line, the memory then, and the memory serving.
    private func once(directory: String, count: Int, isolation: String) throws
        -> (time: UInt64, memory: ProcessMemory, serving: ProcessMemory) {
        let command = "plugboard run --plugin-dir \(directory) --isolation \(isolation)"
        let start = Clock.now()
        let child = try ChildProcess(cli, ["run", "--plugin-dir", directory, "--isolation", isolation, "--json", "--events", "-"],
                                     input: .pipe, output: .pipe, error: .discard)
        defer { child.stop() }
        guard let output = child.output else { throw BenchmarkError("\(command): no pipe for its output") }
        var pending: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 1 << 16)
        /// Reads lines, each to `line`, until it says true; false at the end of the output.
        func read(until line: (String) -> Bool) throws -> Bool {
            while true {
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let text = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    if line(text) { return true }
                }
                let count = try child.read(output, into: &buffer)
                guard count > 0 else { return false }
                pending += buffer[..<count]
            }
        }
        var loaded = 0, launched: UInt64?
        _ = try read { line in
            if line.contains("\"type\"") && line.contains("\"load\"") && line.contains("\"loaded\"") { loaded += 1 }
            if line.contains("\"did-finish-launching\"") { launched = Clock.now() &- start }
            return launched != nil
        }
        guard let launched, loaded == count else {
            throw BenchmarkError("\(command) --json: \(loaded) of \(count) libraries loaded, "
                + (launched == nil ? "no did-finish-launching line" : "then launched"))
        }
        let memory = ProcessMemory.tree(of: child.pid)
        Thread.sleep(forTimeInterval: Self.servingPause)
        try child.send(Array("{\"event\":\"memory-warning\"}\n".utf8))
        guard try read(until: { $0.contains("\"memory-warning\"") }) else {
            throw BenchmarkError("\(command) --json: no memory-warning line")
        }
        let serving = ProcessMemory.tree(of: child.pid)
        child.closeInput()
        while try child.read(output, into: &buffer) > 0 {}
        let termination = try child.wait()
        guard termination.succeeded else { throw BenchmarkError("\(command) --json --events - ended with \(termination)") }
        return (launched, memory, serving)
    }
}
