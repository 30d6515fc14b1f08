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
    /// The host and its workers at that point, in the run with the most resident memory.
    let memory: ProcessMemory
}

/// Measures `plugboard run` from exec to "launched": the CLI runs with `--json`
/// and `--events -` on a pipe held open, so it waits for events after launching;
/// the time is taken when its did-finish-launching line arrives, the resident
/// memory of it and its workers is read at that moment, and then its standard
/// input is closed so that it terminates.
struct StartupBenchmark {
    /// The `plugboard` CLI.
    let cli: String
    /// Runs per mode and count; the best time is kept.
    let repetitions: Int

    /// Measures `count` libraries of `directory` in both modes, interleaved.
    func run(directory: String, count: Int) throws -> [StartupMeasurement] {
        let modes = ["none", "process"]
        var best = modes.map { _ in (time: UInt64.max, memory: ProcessMemory(processes: 0, rss: 0, pss: 0)) }
        for _ in 0..<repetitions {
            for (index, mode) in modes.enumerated() {
                let (time, memory) = try once(directory: directory, count: count, isolation: mode)
                best[index].time = min(best[index].time, time)
                if memory.rss > best[index].memory.rss { best[index].memory = memory }
            }
        }
        return modes.indices.map {
            StartupMeasurement(libraries: count, isolation: modes[$0], nanoseconds: best[$0].time, memory: best[$0].memory)
        }
    }

    /// One run: the time to the did-finish-launching line and the memory then.
    private func once(directory: String, count: Int, isolation: String) throws -> (UInt64, ProcessMemory) {
        let command = "plugboard run --plugin-dir \(directory) --isolation \(isolation)"
        let start = Clock.now()
        let child = try ChildProcess(cli, ["run", "--plugin-dir", directory, "--isolation", isolation, "--json", "--events", "-"],
                                     input: .pipe, output: .pipe, error: .discard)
        defer { child.stop() }
        guard let output = child.output else { throw BenchmarkError("\(command): no pipe for its output") }
        var pending: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 1 << 16)
        var loaded = 0, launched: UInt64?
        while launched == nil {
            let count = try child.read(output, into: &buffer)
            guard count > 0 else { break }
            pending += buffer[..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if line.contains("\"type\"") && line.contains("\"load\"") && line.contains("\"loaded\"") { loaded += 1 }
                if line.contains("\"did-finish-launching\"") { launched = Clock.now() &- start }
            }
        }
        guard let launched, loaded == count else {
            throw BenchmarkError("\(command) --json: \(loaded) of \(count) libraries loaded, "
                + (launched == nil ? "no did-finish-launching line" : "then launched"))
        }
        let memory = ProcessMemory.tree(of: child.pid)
        child.closeInput()
        while try child.read(output, into: &buffer) > 0 {}
        let termination = try child.wait()
        guard termination.succeeded else { throw BenchmarkError("\(command) --json --events - ended with \(termination)") }
        return (launched, memory)
    }
}
