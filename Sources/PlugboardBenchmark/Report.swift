/// Everything one run measured.
struct BenchmarkResults {
    /// Whether it was a `--quick` run.
    let quick: Bool
    /// Whether only the plugin-worker part ran (`--workers-only`).
    let workersOnly: Bool
    /// The amounts of work.
    let settings: BenchmarkSettings
    /// The machine.
    let machine: MachineInfo
    /// What the plugin compilation did.
    let compile: PluginFactory.CompileSummary
    /// The cache directory's name (under the system temporary directory).
    let cacheName: String
    /// Whether the `plugboard` CLI was found and timed.
    let cliFound: Bool
    /// Dispatch results, by plugin count then event.
    let dispatch: [DispatchMeasurement]
    /// Load results, by plugin count.
    let load: [LoadMeasurement]
    /// The plugin-worker part; nil when the CLI or the worker was not found.
    let workers: WorkerResults?
    /// Whether only the call part ran (`--calls-only`).
    let callsOnly: Bool
    /// The plugin-function call part; nil with `--workers-only`.
    let calls: CallResults?
    /// Wall time of the whole run.
    let nanoseconds: UInt64
    /// Load averages at the start and at the end of the run.
    let loadAverages: (start: String, end: String)
}

/// The goals the numbers are judged against.
enum Goals {
    /// Our dispatch to `plugins` plugins may cost at most this many times its floor (the C loop
    /// and the clock reads the timing needs): 1.5× for one plugin, 1.2× for more.
    static func dispatchOverFloor(plugins: Int) -> Double { plugins <= 1 ? 1.5 : 1.2 }
    /// The dispatch goal is judged at up to this many plugins.
    static let dispatchPlugins = 10
    /// Loading this many plugins in a fresh process …
    static let loadPlugins = 1000
    /// … may take at most this many times the C loader.
    static let loadRatio = 1.2
}

/// Renders results as a plain-text table or as the BENCHMARKS.md section.
enum Report {
    /// The command that reproduces a run.
    static func command(_ results: BenchmarkResults) -> String {
        "swift run -c release --scratch-path .build-bench plugboard-benchmark" + (results.quick ? " --quick" : "")
            + (results.workersOnly ? " --workers-only" : "") + (results.callsOnly ? " --calls-only" : "")
    }

    /// One-line verdicts against the goals.
    static func verdicts(_ results: BenchmarkResults) -> [String] {
        var lines: [String] = []
        let modes: [(name: String, ratio: (DispatchMeasurement) -> Double, floor: (DispatchMeasurement) -> Double,
                     floorName: String)] = [
            ("`timing: .perEvent`", \.ratioPerEvent, \.perEventOverFloor, "C + two clock reads per event"),
            ("`timing: .perCall` (the default)", \.ratioPerCall, \.perCallOverFloor, "C + a clock read per call"),
        ]
        for mode in modes {
            guard let worst = results.dispatch.max(by: { mode.ratio($0) < mode.ratio($1) }),
                  let best = results.dispatch.min(by: { mode.ratio($0) < mode.ratio($1) }),
                  let worstFloor = results.dispatch.max(by: { mode.floor($0) < mode.floor($1) }),
                  let bestFloor = results.dispatch.min(by: { mode.floor($0) < mode.floor($1) }) else { continue }
            let judged = results.dispatch.filter { $0.plugins <= Goals.dispatchPlugins }
            let met = judged.allSatisfy { mode.floor($0) <= Goals.dispatchOverFloor(plugins: $0.plugins) }
            lines.append("Dispatch within 1.5× (1 plugin) and 1.2× (up to \(Goals.dispatchPlugins)) of its floor, \(mode.name): "
                + (met ? "MET" : "MISSED")
                + " (ours/C from \(Format.ratio(mode.ratio(best))) [\(best.event.rawValue), \(best.plugins) plugins]"
                + " to \(Format.ratio(mode.ratio(worst))) [\(worst.event.rawValue), \(worst.plugins) plugins];"
                + " against its floor, \(mode.floorName), from \(Format.ratio(mode.floor(bestFloor)))"
                + " to \(Format.ratio(mode.floor(worstFloor))))")
        }
        if let worst = results.dispatch.max(by: { $0.ratioPerEventCopied < $1.ratioPerEventCopied }),
           let best = results.dispatch.min(by: { $0.ratioPerEventCopied < $1.ratioPerEventCopied }) {
            lines.append("(`timing: .perEvent` against the C loop over copied slots: from "
                + "\(Format.ratio(best.ratioPerEventCopied)) [\(best.event.rawValue), \(best.plugins) plugins] to "
                + "\(Format.ratio(worst.ratioPerEventCopied)) [\(worst.event.rawValue), \(worst.plugins) plugins])")
        }
        if let thousand = results.load.first(where: { $0.plugins == Goals.loadPlugins }) {
            var line = "\(Goals.loadPlugins) plugins loaded in a fresh process within \(Format.fixed(Goals.loadRatio, 1))× the C loader: "
                + "with the scan cache " + (thousand.cachedRatio <= Goals.loadRatio ? "MET" : "MISSED") + " (\(Format.ratio(thousand.cachedRatio))),"
                + " without it " + (thousand.ratio <= Goals.loadRatio ? "MET" : "MISSED") + " (\(Format.ratio(thousand.ratio)))"
                + " (fresh process \(Format.milliseconds(thousand.freshProcessCached)) ms with the cache,"
                + " \(Format.milliseconds(thousand.freshProcess)) ms without, C loader \(Format.milliseconds(thousand.freshProcessC)) ms,"
                + " the C loader reading each file as the checks do \(Format.milliseconds(thousand.freshProcessCChecked)) ms"
                + " (\(Format.ratio(thousand.checkedCRatio)): the floor of checking files before their `dlopen`),"
                + " in this process \(Format.milliseconds(thousand.inProcess)) ms"
            if let net = thousand.cliNet { line += ", `plugboard list --json` \(Format.milliseconds(net)) ms net" }
            lines.append(line + ")")
        } else {
            lines.append("\(Goals.loadPlugins) plugins loaded within \(Format.fixed(Goals.loadRatio, 1))× the C loader: not measured in this run")
        }
        return lines
    }

    /// µs per plugin for `nanoseconds` spent on `plugins`.
    private static func perPlugin(_ nanoseconds: UInt64, _ plugins: Int) -> String {
        Format.fixed(Double(nanoseconds) / 1000 / Double(plugins), 1)
    }

    /// The plain-text report for a terminal.
    static func table(_ results: BenchmarkResults) -> String {
        let machine = results.machine
        var lines = [
            "Plugboard benchmark (\(results.quick ? "quick smoke run: not for BENCHMARKS.md" : "full run"))",
            "machine: \(machine.processors) × \(machine.cpuModel); \(machine.swiftVersion); \(machine.compilerVersion); glibc \(machine.libc); Linux \(machine.kernel)",
            compileLine(results),
            "",
        ]
        if !results.workersOnly && !results.callsOnly { lines += hostTable(results) }
        if let workers = results.workers { lines += WorkerReport.table(workers) + [""] }
        if let calls = results.calls { lines += CallReport.table(calls) + [""] }
        lines.append("run took \(Format.seconds(results.nanoseconds)) s; load average (1/5/15 min) \(results.loadAverages.start) at the start, \(results.loadAverages.end) at the end")
        return lines.joined(separator: "\n")
    }

    /// The dispatch and load tables and the goals of the in-process host.
    private static func hostTable(_ results: BenchmarkResults) -> [String] {
        var lines = [
            "Dispatch: ns per plugin per event, best of \(results.settings.repetitions), each measurement ≥ \(Format.fixed(Double(results.settings.targetNanoseconds) / 1e9, 2)) s",
            [Format.left("event", 24), Format.right("plugins", 7), Format.right("C loop", 8), Format.right("C copied", 8),
             Format.right("C+2clk/ev", 9), Format.right("perEvent", 9), Format.right("÷C", 7), Format.right("÷floor", 7),
             Format.right("C+clk/call", 10), Format.right("perCall", 9), Format.right("÷C", 7), Format.right("÷floor", 7),
             Format.right("+calls", 8),
            ].joined(separator: "  "),
        ]
        for row in results.dispatch {
            lines.append([Format.left(row.event.rawValue, 24), Format.right(String(row.plugins), 7),
                          Format.right(Format.fixed(row.c, 2), 8), Format.right(Format.fixed(row.cCopied, 2), 8),
                          Format.right(Format.fixed(row.cPerEvent, 1), 9),
                          Format.right(Format.fixed(row.perEvent, 1), 9), Format.right(Format.ratio(row.ratioPerEvent), 7),
                          Format.right(Format.ratio(row.perEventOverFloor), 7),
                          Format.right(Format.fixed(row.cPerCall, 1), 10), Format.right(Format.fixed(row.perCall, 1), 9),
                          Format.right(Format.ratio(row.ratioPerCall), 7), Format.right(Format.ratio(row.perCallOverFloor), 7),
                          Format.right(Format.fixed(row.perCallReadingCalls, 1), 8),
                         ].joined(separator: "  "))
        }
        lines += ["  (C copied: the C loop over a contiguous copy of the slots, as the host keeps them, not through each plugin's",
                  "   vtable pointer; ÷C is against the C loop)",
                  "  (perEvent, perCall: our host with that `timing`; C+2clk/ev: the C loop plus a clock read at the start and end",
                  "   of each event, the floor of perEvent; C+clk/call: plus one clock read per call, the floor of perCall;",
                  "   +calls: perCall reading each report's `calls`, which the report builds when read)", ""]
        lines.append("Load: discover, dlopen, init and register; one plugin per library; ms (µs per plugin)")
        lines.append([Format.right("plugins", 7), Format.right("ours fresh", 18), Format.right("ours, cache", 18), Format.right("C fresh", 18),
                      Format.right("C checked", 18), Format.right("ours/C", 7), Format.right("cache/C", 7), Format.right("ours in-process", 18), Format.right("again (mapped)", 18),
                      Format.right("list --json net", 18)].joined(separator: "  "))
        for row in results.load {
            /// Milliseconds with µs per plugin.
            func cell(_ ns: UInt64) -> String { "\(Format.milliseconds(ns)) (\(perPlugin(ns, row.plugins)))" }
            lines.append([Format.right(String(row.plugins), 7), Format.right(cell(row.freshProcess), 18),
                          Format.right(cell(row.freshProcessCached), 18), Format.right(cell(row.freshProcessC), 18),
                          Format.right(cell(row.freshProcessCChecked), 18), Format.right(Format.ratio(row.ratio), 7), Format.right(Format.ratio(row.cachedRatio), 7),
                          Format.right(cell(row.inProcess), 18), Format.right(cell(row.inProcessAgain), 18),
                          Format.right(row.cliNet.map(cell) ?? "–", 18)].joined(separator: "  "))
        }
        if let startup = results.load.first?.cliStartup {
            lines.append("  (list --json net: wall time of `plugboard list --plugin-dir DIR --json --no-cache` minus the same over an empty directory, \(Format.milliseconds(startup)) ms)")
        }
        return lines + ["", "Goals:"] + verdicts(results).map { "  " + $0 } + [""]
    }

    /// The compilation line: how many libraries were compiled and how long it took.
    static func compileLine(_ results: BenchmarkResults) -> String {
        let compile = results.compile
        var line = "plugins: cache $TMPDIR/\(results.cacheName); "
        if compile.compiled > 0 {
            line += "compiled \(compile.compiled) libraries in \(Format.seconds(compile.nanoseconds)) s (\(compile.jobs) jobs)"
            line += compile.reused > 0 ? ", reused \(compile.reused)" : ""
        } else {
            line += "all \(compile.reused) libraries reused from the cache (compiled by an earlier run)"
        }
        return line
    }

    /// The BENCHMARKS.md results sections: the in-process host's, then the plugin workers'.
    static func markdown(_ results: BenchmarkResults) -> String {
        let host = results.workersOnly || results.callsOnly ? [] : [hostMarkdown(results)]
        let workers = results.workers.map { ["## Plugin workers", WorkerReport.markdown($0, of: results)] } ?? []
        let calls = results.calls.map { [
            "## Plugin function calls",
            "Reproduce: `\(command(results))`. " + machineSentence(results.machine) + " " + runSentence(results),
            CallReport.markdown($0),
        ] } ?? []
        return (host + workers + calls).joined(separator: "\n\n")
    }

    /// The machine, in one sentence.
    static func machineSentence(_ machine: MachineInfo) -> String {
        "Machine: \(machine.processors) processors (`nproc`), \(machine.cpuModel) (`/proc/cpuinfo`); "
            + "\(machine.swiftVersion); \(machine.compilerVersion); glibc \(machine.libc); Linux \(machine.kernel)."
    }

    /// The load averages and the run's duration, in one sentence.
    static func runSentence(_ results: BenchmarkResults) -> String {
        "Whole run: \(Format.seconds(results.nanoseconds)) s. Load average (1/5/15 min, other work on the machine): "
            + "\(results.loadAverages.start) at the start, \(results.loadAverages.end) at the end."
    }

    /// The in-process host's results section.
    private static func hostMarkdown(_ results: BenchmarkResults) -> String {
        let settings = results.settings
        var lines = [
            "## Results of one run",
            "",
            "Reproduce (from the package root):",
            "",
            "```sh",
            command(results),
            "```",
            "",
            "(It builds the `plugboard` CLI next to itself if it is missing, and compiles the plugins on first use. "
                + "`--markdown` prints this section; `--quick` is a smoke run, not for this file.)",
            "",
            machineSentence(results.machine),
            "",
            compileLine(results) + ". " + runSentence(results),
            "",
            "### Goals",
            "",
        ]
        lines += verdicts(results).map { "- " + $0 }
        lines += [
            "",
            "### Dispatch",
            "",
            "Nanoseconds per plugin per event; best of \(settings.repetitions) measurements per side, the sides "
                + "interleaved, each measurement at least \(Format.fixed(Double(settings.targetNanoseconds) / 1e9, 2)) s. "
                + "*Ours* is one host, switched between `timing: .perEvent` (two clock reads per event, no duration per call) "
                + "and `timing: .perCall` (the default: a clock read after every call). Each mode has its floor next to it: "
                + "the C loop with the same clock reads. *C, copied slots* is the C loop over one contiguous array of "
                + "(slot, ctx) pairs, as the host keeps them, instead of through each plugin's vtable pointer into its own "
                + "library. The timing loops use each report's answer or duration; *reading `calls`* also reads each "
                + "report's `calls`, an array the report builds when it is read.",
            "",
            "`timing: .perEvent`:",
            "",
            "| event | plugins | C loop | C, copied slots | C + 2 clocks/event (floor) | ours | ours ÷ C loop | ours ÷ floor |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in results.dispatch {
            lines.append("| `\(row.event.rawValue)` | \(row.plugins) | \(Format.fixed(row.c, 2)) | \(Format.fixed(row.cCopied, 2)) | "
                + "\(Format.fixed(row.cPerEvent, 1)) | \(Format.fixed(row.perEvent, 1)) | **\(Format.ratio(row.ratioPerEvent))** | "
                + "\(Format.ratio(row.perEventOverFloor)) |")
        }
        lines += [
            "",
            "`timing: .perCall` (the default):",
            "",
            "| event | plugins | C loop | C + clock/call (floor) | ours | ours ÷ C loop | ours ÷ floor | ours, reading `calls` |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in results.dispatch {
            lines.append("| `\(row.event.rawValue)` | \(row.plugins) | \(Format.fixed(row.c, 2)) | \(Format.fixed(row.cPerCall, 1)) | "
                + "\(Format.fixed(row.perCall, 1)) | **\(Format.ratio(row.ratioPerCall))** | \(Format.ratio(row.perCallOverFloor)) | "
                + "\(Format.fixed(row.perCallReadingCalls, 1)) |")
        }
        if let fewest = results.dispatch.min(by: { $0.iterations.perEvent < $1.iterations.perEvent }) {
            lines += ["", "Events per measurement: from \(fewest.iterations.perEvent) (ours, \(fewest.plugins) plugins) "
                + "to \(results.dispatch.map(\.iterations.c).max() ?? 0) (the C loop)."]
        }
        if let shortest = results.dispatch.map(\.shortestMeasurement).min() {
            lines += ["", "Shortest single measurement of the run: \(Format.fixed(Double(shortest) / 1e9, 3)) s."]
        }
        lines += [
            "",
            "### Load",
            "",
            "Discover, `dlopen`, `init` and `register_plugins`, one plugin per library, files in the page cache. "
                + "Milliseconds, with µs per plugin in parentheses. *Fresh* columns: best of \(settings.repetitions) child "
                + "processes, each timing the load alone from inside; *with the cache*, the host also opens the scan cache "
                + "a host keeps (`PluginHost.scanCache`, as `plugboard run --isolation none` does), which remembers every "
                + "file as checked, inside the timed span. *C reading each file as the checks do*: the C loader, each "
                + "library first opened, its status taken and its header and dynamic section read as the host's ELF checks "
                + "read them before its `dlopen` (`pbb_set_open_directory_checked`). *In-process*: once in the benchmark process; "
                + "*again*: the same directory after `shutdown()`, images still mapped (`RTLD_NODELETE`), so everything "
                + "but mapping and relocation. *list --json net*: wall time of `plugboard list --plugin-dir DIR --json --no-cache` "
                + "minus the same over an empty directory (process start-up), so it includes JSON encoding.",
            "",
            "| plugins | ours, fresh | ours, fresh, with the cache | C, fresh | C reading each file as the checks do, fresh | ours / C | with the cache / C | ours, in-process | again (mapped) | list --json net | libraries loaded before |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in results.load {
            /// Milliseconds with µs per plugin.
            func cell(_ ns: UInt64) -> String { "\(Format.milliseconds(ns)) (\(perPlugin(ns, row.plugins)))" }
            lines.append("| \(row.plugins) | **\(cell(row.freshProcess))** | **\(cell(row.freshProcessCached))** | \(cell(row.freshProcessC)) | \(cell(row.freshProcessCChecked)) | "
                + "\(Format.ratio(row.ratio)) | \(Format.ratio(row.cachedRatio)) | \(cell(row.inProcess)) | \(cell(row.inProcessAgain)) | \(row.cliNet.map(cell) ?? "not measured") | \(row.alreadyLoaded) |")
        }
        if let startup = results.load.first?.cliStartup {
            lines += ["", "`plugboard list --json` over an empty directory (start-up baseline): \(Format.milliseconds(startup)) ms."]
        }
        return lines.joined(separator: "\n")
    }
}
