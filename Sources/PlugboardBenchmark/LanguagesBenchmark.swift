import Glibc
import Plugboard

/// The events of the language rows.
enum LanguageEvent: String, CaseIterable {
    /// `host.open(url: "https://example.com/")`: no plugin handles it, so every plugin is asked.
    case openURL = "open(url:)"
    /// `host.didReceiveMemoryWarning()`: a broadcast.
    case memoryWarning = "didReceiveMemoryWarning()"
}

/// One row: ns per plugin per event of each language's plugins, measured interleaved.
struct LanguageMeasurement {
    let event: LanguageEvent
    let plugins: Int
    let timing: CallTiming
    /// Best ns per plugin per event, by language.
    let nanoseconds: [PluginLanguage: Double]

    /// `language` divided by C.
    func ratio(_ language: PluginLanguage) -> Double {
        (nanoseconds[language] ?? .nan) / (nanoseconds[.c] ?? .nan)
    }
}

/// Dispatch in process to the same plugin written in C, C++, Rust and Swift (``LanguagePlugins``):
/// one `PluginHost` per language loads that language's library of N plugins; for each timing mode
/// and event the four hosts are measured in turn, `repetitions` times, each measurement lasting at
/// least the target (``Sampler``), and each keeps its best.
struct LanguagesBenchmark {
    let targetNanoseconds: UInt64
    let repetitions: Int

    /// The URL sent: no plugin's scheme, so every plugin compares and answers false.
    static let url = "https://example.com/"

    /// Loads `count` plugins per language and measures both events in both timing modes.
    func run(_ plugins: LanguagePlugins, count: Int) throws -> [LanguageMeasurement] {
        var hosts: [(PluginLanguage, PluginHost)] = []
        defer { hosts.forEach { $0.1.shutdown() } }
        setenv(LanguagePlugins.swiftCountVariable, String(count), 1)
        for language in PluginLanguage.allCases {
            let host = PluginHost()
            hosts.append((language, host))
            let directory = plugins.directory(language, count: count)
            let reports = host.loadPlugins(from: PluginSearchPath(explicit: [directory]))
            let failures = reports.filter { $0.status != .loaded }
            guard failures.isEmpty, host.plugins.count == count else {
                let reason = failures.first.map { "\($0.path): \($0.failure.map(\.description) ?? $0.status.rawValue)" } ?? ""
                throw BenchmarkError("the \(language.rawValue) host loaded \(host.plugins.count) of \(count) plugins from \(directory) \(reason)")
            }
            try verify(host, language: language, count: count)
        }
        var measurements: [LanguageMeasurement] = []
        for timing in [CallTiming.perEvent, .perCall] {
            for event in LanguageEvent.allCases {
                hosts.forEach { $0.1.timing = timing }
                let sampler = Sampler(targetNanoseconds: targetNanoseconds)
                let bodies = hosts.map { _, host in { (iterations: UInt64) in Self.time(event, host, iterations) } }
                var states = bodies.map { sampler.side($0) }
                for _ in 0..<repetitions {
                    for index in bodies.indices { sampler.measureOnce(bodies[index], &states[index]) }
                }
                let best = Dictionary(uniqueKeysWithValues: zip(hosts.map(\.0), states.map { $0.best / Double(count) }))
                measurements.append(LanguageMeasurement(event: event, plugins: count, timing: timing, nanoseconds: best))
            }
        }
        return measurements
    }

    /// Checks that each event reaches every plugin and that no plugin handles the URL.
    private func verify(_ host: PluginHost, language: PluginLanguage, count: Int) throws {
        let url = host.open(url: Self.url)
        guard url.answer == .bool(false), url.calls.count == count, url.failures.isEmpty else {
            throw BenchmarkError("\(language.rawValue): open(url:) answered \(url.answer) with \(url.calls.count) calls, expected false with \(count)")
        }
        let handled = host.open(url: "benchapp://item")
        guard handled.answer == .bool(true) else {
            throw BenchmarkError("\(language.rawValue): no plugin handled benchapp://item")
        }
        let memory = host.didReceiveMemoryWarning()
        guard memory.calls.count == count, memory.failures.isEmpty else {
            throw BenchmarkError("\(language.rawValue): didReceiveMemoryWarning made \(memory.calls.count) calls, expected \(count)")
        }
    }

    /// Times `iterations` events, using each report's answer or duration.
    @inline(never)
    static func time(_ event: LanguageEvent, _ host: PluginHost, _ iterations: UInt64) -> UInt64 {
        var sum: UInt64 = 0
        let start = Clock.now()
        switch event {
        case .openURL:
            for _ in 0..<iterations where host.open(url: url).answer == .bool(true) { sum &+= 1 }
        case .memoryWarning:
            for _ in 0..<iterations { sum &+= host.didReceiveMemoryWarning().nanoseconds }
        }
        let elapsed = Clock.now() &- start
        blackHole(sum)
        return elapsed
    }

    /// The BENCHMARKS.md rows: the machine, the load averages (1/5/15 min) at the start and the end
    /// of the measurements, and one table per timing mode.
    static func markdown(_ measurements: [LanguageMeasurement], machine: MachineInfo,
                         loadAverages: (start: String, end: String)) -> String {
        var lines: [String] = [Report.machineSentence(machine) + " Load average (1/5/15 min, other work on the machine): "
                                + "\(loadAverages.start) at the start, \(loadAverages.end) at the end.", ""]
        for timing in [CallTiming.perEvent, .perCall] {
            lines += ["`timing: .\(timing)` — ns per plugin per event (best of the repetitions), and the ratio to C:", "",
                      "| plugins | event | C | C++ | Rust | Swift | C++ / C | Rust / C | Swift / C |",
                      "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
            for row in measurements where row.timing == timing {
                let times = PluginLanguage.allCases.map { Format.fixed(row.nanoseconds[$0] ?? .nan, 1) }
                let ratios = [PluginLanguage.cplusplus, .rust, .swift].map { Format.ratio(row.ratio($0)) }
                lines.append("| \(row.plugins) | `\(row.event.rawValue)` | " + (times + ratios).joined(separator: " | ") + " |")
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }
}
