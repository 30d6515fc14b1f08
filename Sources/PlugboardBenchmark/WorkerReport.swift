/// The goals of the plugin-worker part.
enum WorkerGoals {
    /// A worker round trip may cost at most this many times the channel floor.
    static let floorRatio = 1.3
    /// Process-mode start-up is judged over this many libraries …
    static let startupLibraries = 100
    /// … and may take at most this long, in ns …
    static let startupNanoseconds: UInt64 = 250_000_000
    /// … and hold at most this much resident memory in all (VmRSS summed), serving, in KiB.
    static let startupKibibytes: UInt64 = 600 << 10
    /// `list` of this many unchanged libraries from the scan cache …
    static let listLibraries = 1000
    /// … may take at most this long of its own work, in ns.
    static let listNanoseconds: UInt64 = 10_000_000
}

/// Renders the plugin-worker part as a plain-text table or as its BENCHMARKS.md section.
enum WorkerReport {
    /// One-line verdicts against ``WorkerGoals``.
    static func verdicts(_ workers: WorkerResults) -> [String] {
        var lines: [String] = []
        if let worst = workers.dispatch.max(by: { $0.ratio < $1.ratio }),
           let best = workers.dispatch.min(by: { $0.ratio < $1.ratio }) {
            lines.append("Worker round trip within \(Format.fixed(WorkerGoals.floorRatio, 1))× the raw channel floor: "
                + (worst.ratio <= WorkerGoals.floorRatio ? "MET" : "MISSED")
                + " (from \(Format.ratio(best.ratio)) [\(best.plugins) plugins] to \(Format.ratio(worst.ratio)) [\(worst.plugins) plugins])")
        }
        if let row = workers.startup.first(where: { $0.libraries == WorkerGoals.startupLibraries && $0.isolation == "process" }) {
            lines.append("Process-mode start-up for \(row.libraries) libraries under \(Format.milliseconds(WorkerGoals.startupNanoseconds)) ms: "
                + (row.nanoseconds < WorkerGoals.startupNanoseconds ? "MET" : "MISSED")
                + " (\(Format.milliseconds(row.nanoseconds)) ms from exec to the did-finish-launching line)")
            /// Whether `kibibytes` is under the goal.
            func verdict(_ kibibytes: UInt64) -> String { kibibytes < WorkerGoals.startupKibibytes ? "MET" : "MISSED" }
            lines.append("… and under \(WorkerGoals.startupKibibytes >> 10) MiB resident in all, serving (host and "
                + "\(row.serving.processes - 1) workers, VmRSS summed): \(verdict(row.serving.rss)) (VmRSS sum "
                + "\(mebibytes(row.serving.rss)) MiB, PSS sum, shared pages counted once, \(mebibytes(row.serving.pss)) MiB; "
                + "at the did-finish-launching line, before the workers gave back what starting touched: "
                + "\(mebibytes(row.memory.rss)) and \(mebibytes(row.memory.pss)) MiB)")
        } else {
            lines.append("Process-mode start-up for \(WorkerGoals.startupLibraries) libraries: not measured in this run")
        }
        if workers.listLibraries == WorkerGoals.listLibraries {
            lines.append("`list` of \(WorkerGoals.listLibraries) unchanged libraries from the scan cache in under "
                + "\(Format.milliseconds(WorkerGoals.listNanoseconds)) ms of its own work: "
                + (workers.listWarmNet < WorkerGoals.listNanoseconds ? "MET" : "MISSED")
                + " (\(Format.milliseconds(workers.listWarmNet)) ms net of start-up; cold, every library scanned in a worker: "
                + "\(Format.milliseconds(workers.listNet)) ms)")
        } else {
            lines.append("`list` of \(WorkerGoals.listLibraries) libraries from the scan cache: not measured in this run")
        }
        return lines
    }

    /// KiB as MiB with one decimal.
    static func mebibytes(_ kibibytes: UInt64) -> String { Format.fixed(Double(kibibytes) / 1024, 1) }

    /// The plain-text lines for a terminal.
    static func table(_ workers: WorkerResults) -> [String] {
        var lines = [
            "Plugin workers: willFinishLaunching, ns per plugin per event (one library, so one worker, per plugin)",
            [Format.right("plugins", 7), Format.right("in process", 10), Format.right("workers", 9), Format.right("floor", 9),
             Format.right("÷floor", 7), Format.right("÷in-proc", 8), Format.right("protocol", 9),
             Format.right("floor+handoff", 13), Format.right("handoff", 8)].joined(separator: "  "),
        ]
        for row in workers.dispatch {
            lines.append([Format.right(String(row.plugins), 7), Format.right(Format.fixed(row.inProcess, 1), 10),
                          Format.right(Format.fixed(row.workers, 0), 9), Format.right(Format.fixed(row.floor, 0), 9),
                          Format.right(Format.ratio(row.ratio), 7), Format.right(Format.ratio(row.overInProcess), 8),
                          Format.right(Format.fixed(row.protocolCost, 0), 9), Format.right(Format.fixed(row.floorHandoff, 0), 13),
                          Format.right(Format.fixed(row.handoffCost, 0), 8)].joined(separator: "  "))
        }
        lines += ["", "plugboard run, exec to the did-finish-launching line; resident memory of the host and its workers then, "
                      + "and serving (idle \(Format.fixed(StartupBenchmark.servingPause, 1)) s, then one memory warning)",
                  [Format.right("libraries", 9), Format.left("isolation", 9), Format.right("ms", 9), Format.right("processes", 9),
                   Format.right("RSS MiB", 9), Format.right("PSS MiB", 9), Format.right("serving RSS", 11),
                   Format.right("serving PSS", 11)].joined(separator: "  ")]
        for row in workers.startup {
            lines.append([Format.right(String(row.libraries), 9), Format.left(row.isolation, 9),
                          Format.right(Format.milliseconds(row.nanoseconds), 9), Format.right(String(row.memory.processes), 9),
                          Format.right(mebibytes(row.memory.rss), 9), Format.right(mebibytes(row.memory.pss), 9),
                          Format.right(mebibytes(row.serving.rss), 11), Format.right(mebibytes(row.serving.pss), 11)]
                .joined(separator: "  "))
        }
        lines += ["", "plugboard list --json over \(workers.listLibraries) libraries: cold (--no-cache) "
            + "\(Format.milliseconds(workers.list)) ms, \(Format.milliseconds(workers.listNet)) ms net of start-up; warm (scan cache) "
            + "\(Format.milliseconds(workers.listWarm)) ms, \(Format.milliseconds(workers.listWarmNet)) ms net "
            + "(start-up: \(Format.milliseconds(workers.listStartup)) ms over an empty directory)",
            "", "Worker goals:"]
        return lines + verdicts(workers).map { "  " + $0 }
    }

    /// The results part of the BENCHMARKS.md section "Plugin workers".
    static func markdown(_ workers: WorkerResults, of results: BenchmarkResults) -> String {
        var lines = [
            "### Results of one run",
            "",
            "```sh",
            Report.command(results),
            "```",
            "",
            Report.machineSentence(results.machine),
            "",
            Report.compileLine(results) + ". " + Report.runSentence(results),
            "",
            "#### Goals",
            "",
        ]
        lines += verdicts(workers).map { "- " + $0 }
        lines += [
            "",
            "#### Dispatch in workers",
            "",
            "`willFinishLaunching(options: \"{}\")`, nanoseconds per plugin per event, best of "
                + "\(results.settings.repetitions) measurements per side, the sides interleaved, each at least "
                + "\(Format.fixed(Double(results.settings.targetNanoseconds) / 1e9, 2)) s. One plugin per library, so "
                + "N plugins are N workers, called one after the other. *Floor*: N C echo processes, each on a "
                + "`socketpair(AF_UNIX, SOCK_STREAM)`; the parent writes a \(WorkerDispatchBenchmark.callFrameBytes)-byte "
                + "request (the size of this `call` frame) to each in turn and blocks on reading its "
                + "\(WorkerDispatchBenchmark.answerFrameBytes)-byte reply (the size of the `answer` frame). *Floor + "
                + "handoff*: the same, but a second thread reads the replies and wakes the caller through a semaphore, as "
                + "the host's reader thread does. *Protocol* = workers − floor; *handoff* = floor + handoff − floor.",
            "",
            "| plugins | in process | workers | floor | **workers ÷ floor** | workers ÷ in process | protocol (ns) | floor + handoff | handoff (ns) |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in workers.dispatch {
            lines.append("| \(row.plugins) | \(Format.fixed(row.inProcess, 1)) | \(Format.fixed(row.workers, 0)) | "
                + "\(Format.fixed(row.floor, 0)) | **\(Format.ratio(row.ratio))** | \(Format.ratio(row.overInProcess)) | "
                + "\(Format.fixed(row.protocolCost, 0)) | \(Format.fixed(row.floorHandoff, 0)) | \(Format.fixed(row.handoffCost, 0)) |")
        }
        lines += [
            "",
            "#### Start-up and memory",
            "",
            "`plugboard run --plugin-dir DIR --isolation MODE --json --events -`, standard input a pipe held open: "
                + "wall time from just before the spawn to the arrival of the `did-finish-launching` line (best of "
                + "\(results.settings.repetitions)), and at that moment the resident memory of the host and every "
                + "descendant (its workers), found through the parent field of every `/proc/PID/stat`: the sum of `VmRSS` "
                + "(`/proc/PID/status`; shared pages, such as the Swift runtime and libc, count once per process) and "
                + "the sum of `Pss` (`/proc/PID/smaps_rollup`; shared pages divided among the processes that map them); "
                + "then the same serving: after \(Format.fixed(StartupBenchmark.servingPause, 1)) s idle (a worker gives "
                + "back what starting and loading touched after 1 s idle) and one `memory-warning` event to every plugin. "
                + "Both readings are from the run with the largest RSS sum serving.",
            "",
            "| libraries | isolation | ms to launched | processes | RSS sum (MiB) | PSS sum (MiB) | serving: RSS sum | PSS sum |",
            "|---:|---|---:|---:|---:|---:|---:|---:|",
        ]
        for row in workers.startup {
            lines.append("| \(row.libraries) | `\(row.isolation)` | \(Format.milliseconds(row.nanoseconds)) | "
                + "\(row.memory.processes) | \(mebibytes(row.memory.rss)) | \(mebibytes(row.memory.pss)) | "
                + "\(mebibytes(row.serving.rss)) | \(mebibytes(row.serving.pss)) |")
        }
        lines += [
            "",
            "#### `list` over \(workers.listLibraries) libraries",
            "",
            "| cache | wall (ms) | net of start-up (ms) |",
            "|---|---:|---:|",
            "| cold: `--no-cache`, every library scanned in a worker | \(Format.milliseconds(workers.list)) | \(Format.milliseconds(workers.listNet)) |",
            "| warm: right after a cold one, every library answered from the scan cache | \(Format.milliseconds(workers.listWarm)) | **\(Format.milliseconds(workers.listWarmNet))** |",
            "",
            "Best of \(results.settings.repetitions), each round: start-up (`plugboard list --json --no-cache` over an empty "
                + "directory: \(Format.milliseconds(workers.listStartup)) ms), cold, warm. The benchmark points "
                + "`PLUGBOARD_CACHE_DIR` into its plugin cache, so the user's scan cache is never read or written. Checked once "
                + "before: cold lists every library `\"cached\": false`, warm every one `\"cached\": true`.",
        ]
        return lines.joined(separator: "\n")
    }
}
