import ArgumentParser
import Plugboard

/// The options of `plugboard-benchmark`.
struct BenchmarkOptions: ParsableArguments {
    @Flag(help: "Fewer iterations and plugins (a smoke run, not for BENCHMARKS.md).")
    var quick = false

    @Flag(help: "Print the BENCHMARKS.md results sections instead of the table.")
    var markdown = false

    @Flag(help: "Only the plugin-worker part.")
    var workersOnly = false

    @Flag(help: """
        Only the language rows: one plugin written in C, C++ (plugin.hpp), Rust (rust-sdk) and Swift \
        (PlugboardSDK), N plugins in one library each (N = 1, 10, 100; built with cc, c++, cargo and \
        swift build), dispatched to in process; prints the BENCHMARKS.md rows.
        """)
    var languages = false

    @Flag(help: """
        Only the decorator rows: dispatch to 10 C plugins through hosts with no decorator, each one \
        alone and all three (ratios to none), and a log line from the dispatch thread and from a \
        plugin thread, confined or not.
        """)
    var decorators = false

    @Flag(help: """
        Only the saved-state rows: PluginHost.saveState and restoreState for 100 plugins with 1 KiB \
        each, against writing (temporary file, fsync, rename, fsync of the folder) and reading the \
        same 100 files with plain system calls.
        """)
    var state = false

    @Flag(help: "Only the plugin-function call part.")
    var callsOnly = false

    @Flag(help: """
        Only the notification bus rows: ns per post → delivery to 1, 10, 100 observers in process \
        (against a C loop calling the same callbacks) and in one worker (against the channel \
        floor's round trips); prints them.
        """)
    var bus = false

    @Flag(help: """
        Only the live-plugin rows: a C and a Swift plugin's reload (file in place → new version answers) \
        against a load into a fresh worker; 100 reloads under events (none lost or answered twice); \
        `run` over 20,000 events with and without --watch.
        """)
    var live = false

    /// The `plugboard` CLI to time; default: next to this executable.
    @Option(name: .customLong("plugboard"),
            help: ArgumentHelp("The plugboard CLI to time (default: next to this executable).", valueName: "PATH"))
    var cli: String?

    /// The ABI headers; default: `include/` of the package this file was built from.
    @Option(help: ArgumentHelp("The Plugboard C headers (default: the package's include/).", valueName: "DIR"))
    var include: String?

    /// `--profile-dispatch PLUGINS EVENTS` as given; ``profile()`` reads it.
    @Option(name: .customLong("profile-dispatch"), parsing: .upToNextOption,
            help: ArgumentHelp("""
                Only send EVENTS willFinishLaunching and EVENTS memory warnings to PLUGINS loaded \
                plugins, ours then the C loop (for callgrind).
                """, valueName: "PLUGINS EVENTS"))
    var profileDispatch: [String] = []

    /// `--timing` as given; ``profileTiming()`` reads it.
    @Option(name: .customLong("timing"),
            help: ArgumentHelp("The host's timing for --profile-dispatch.", valueName: "per-call|per-event"))
    var timing = "per-call"

    /// Whether `--profile-dispatch` reads each report's `calls`.
    @Flag(name: .customLong("read-calls"),
          help: "With --profile-dispatch: read each report's `calls` (built when read).")
    var profileReadsCalls = false

    /// `--profile-calls CALLS` as given; ``profileCalls()`` reads it.
    @Option(name: .customLong("profile-calls"),
            help: ArgumentHelp("""
                Only call weigh(3, 2.5, "abc") CALLS times through our engine \
                (CallBenchmark.timeEngine), then through raw libffi (pbb_call_ffi), for callgrind.
                """, valueName: "CALLS"))
    var profileCallsText: String?

    /// `--profile-workers PLUGINS ROUNDS` as given; ``profileWorkers()`` reads it.
    @Option(name: .customLong("profile-workers"), parsing: .upToNextOption,
            help: ArgumentHelp("""
                Only measure willFinishLaunching through PLUGINS plugins in workers against the \
                channel floor, ROUNDS interleaved rounds of 200 ms a side, and print every round.
                """, valueName: "PLUGINS ROUNDS"))
    var profileWorkersArguments: [String] = []

    /// Internal, `--child-load host|host-cached|c|c-checked DIR`: run one load in this process and print its time
    /// (used for fresh-process numbers); ``childLoad()`` reads it.
    @Option(name: .customLong("child-load"), parsing: .upToNextOption, help: .hidden)
    var childLoadArguments: [String] = []

    /// Only run both dispatchers for this many plugins and events (for a profiler such as callgrind); nil without
    /// `--profile-dispatch`.
    func profile() throws -> (plugins: Int, events: UInt64)? {
        try Self.pluginsAndCount(profileDispatch, option: "--profile-dispatch", pluginLimit: 10_000, count: "an event count")
    }

    /// A plugin count (1…`pluginLimit`) and a positive `count` as `option` was given them; nil without `option`.
    private static func pluginsAndCount(_ arguments: [String], option: String, pluginLimit: Int,
                                        count: String) throws -> (Int, UInt64)? {
        if arguments.isEmpty { return nil }
        guard arguments.count == 2, let plugins = Int(arguments[0]), (1...pluginLimit).contains(plugins),
              let number = UInt64(arguments[1]), number > 0 else {
            throw ValidationError("\(option) takes a plugin count (1…\(pluginLimit)) and \(count) (> 0)")
        }
        return (plugins, number)
    }

    /// The host's timing for `--profile-dispatch`.
    func profileTiming() throws -> CallTiming {
        switch timing {
        case "per-call": return .perCall
        case "per-event": return .perEvent
        case let other: throw ValidationError("--timing takes per-call or per-event, not \(String(reflecting: other))")
        }
    }

    /// Only make this many calls through our engine, then through raw libffi (for a profiler such as callgrind);
    /// nil without `--profile-calls`.
    func profileCalls() throws -> UInt64? {
        guard let profileCallsText else { return nil }
        guard let calls = UInt64(profileCallsText), calls > 0 else {
            throw ValidationError("--profile-calls takes a call count (> 0)")
        }
        return calls
    }

    /// The plugin count and rounds of `--profile-workers`; nil without it.
    func profileWorkers() throws -> (plugins: Int, rounds: Int)? {
        try Self.pluginsAndCount(profileWorkersArguments, option: "--profile-workers", pluginLimit: 1000, count: "a round count")
            .map { ($0.0, Int(clamping: $0.1)) }
    }

    /// The loader and directory of a `--child-load` process; nil without `--child-load`.
    func childLoad() throws -> (side: LoadSide, directory: String)? {
        guard let sideText = childLoadArguments.first else { return nil }
        guard let side = LoadSide(rawValue: sideText) else {
            throw ValidationError("--child-load takes host, host-cached, c or c-checked, not \(String(reflecting: sideText))")
        }
        guard childLoadArguments.count == 2, !childLoadArguments[1].isEmpty else {
            throw ValidationError("--child-load takes host, host-cached, c or c-checked and a directory")
        }
        return (side, childLoadArguments[1])
    }

    /// Checks what the types of the options do not: the values above, no empty paths, no two exclusive parts.
    func validate() throws {
        _ = try profile()
        _ = try profileTiming()
        _ = try profileCalls()
        _ = try childLoad()
        _ = try profileWorkers()
        if cli?.isEmpty == true { throw ValidationError("--plugboard needs a value") }
        if include?.isEmpty == true { throw ValidationError("--include needs a value") }
        if workersOnly && callsOnly {
            throw ValidationError("--workers-only and --calls-only exclude each other")
        }
    }
}

/// How much work a run does.
struct BenchmarkSettings {
    /// Plugin counts of the dispatch benchmark.
    let dispatchCounts: [Int]
    /// Plugin counts of the load benchmark.
    let loadCounts: [Int]
    /// Minimum duration of one dispatch measurement, in ns.
    let targetNanoseconds: UInt64
    /// Repetitions per side (best kept), dispatch and fresh-process loads alike.
    let repetitions: Int
    /// Library counts of the `plugboard run` start-up measurement; `list` runs over the largest.
    let startupCounts: [Int]

    /// The real run.
    static let full = BenchmarkSettings(dispatchCounts: [1, 10, 100], loadCounts: [200, 1000],
                                        targetNanoseconds: 200_000_000, repetitions: 5,
                                        startupCounts: [10, 100, 1000])
    /// The smoke run.
    static let quick = BenchmarkSettings(dispatchCounts: [1, 10, 100], loadCounts: [200],
                                         targetNanoseconds: 20_000_000, repetitions: 2,
                                         startupCounts: [10])
}
