import Plugboard

/// The command line of `plugboard-benchmark`.
struct BenchmarkOptions {
    /// Fewer iterations and plugins: a smoke run.
    var quick = false
    /// Print the BENCHMARKS.md section instead of the plain table.
    var markdown = false
    /// Run only the plugin-worker part (dispatch in workers, the channel floor, start-up, list).
    var workersOnly = false
    /// Run only the plugin-function call part (ours in process, direct C, raw libffi, ctypes).
    var callsOnly = false
    /// The `plugboard` CLI to time; default: next to this executable.
    var cli: String?
    /// The ABI headers; default: `include/` of the package this file was built from.
    var include: String?
    /// Internal: run one load in this process and print its time (used for fresh-process numbers).
    var childLoad: (side: LoadSide, directory: String)?
    /// Only run both dispatchers for a fixed number of events (for a profiler such as callgrind).
    var profile: (plugins: Int, events: UInt64)?
    /// The host's timing for `--profile-dispatch`.
    var profileTiming = CallTiming.perCall
    /// Whether `--profile-dispatch` reads each report's `calls`.
    var profileReadsCalls = false
    /// Only make this many calls through our engine, then through raw libffi (for a profiler such as callgrind).
    var profileCalls: UInt64?
    /// Only the language rows: the same plugin in C, C++, Rust and Swift, dispatched to in process.
    var languages = false
    /// Only the decorator rows: each decorator's cost per call, against the undecorated host.
    var decorators = false
    /// Only the saved-state rows: save and restore of 100 plugins × 1 KiB against plain system calls.
    var state = false
    /// Only the notification bus rows: post → delivery to 1, 10, 100 observers, in process and in a worker.
    var bus = false
    /// Print the usage and stop.
    var help = false

    /// The usage text.
    static let usage = """
        usage: plugboard-benchmark [--quick] [--markdown] [--workers-only | --calls-only] [--plugboard PATH] [--include DIR]
               plugboard-benchmark --languages [--quick]
               plugboard-benchmark --decorators [--quick]
               plugboard-benchmark --state [--quick]
               plugboard-benchmark --bus [--quick] [--plugboard PATH]

        Measures Plugboard's dispatch cost against a hand-written C loop over the
        same vtables (1, 10, 100 plugins), and the cost of loading 200 and 1,000
        plugin libraries, in this process and in fresh processes. Then plugin
        workers: dispatch in workers against in process and against a raw C round
        trip over a socketpair (1, 10, 100 plugins); `plugboard run` start-up and
        resident memory over 10, 100 and 1,000 libraries with --isolation none and
        process; `plugboard list` over 1,000 libraries. Then plugin functions: ns per
        call of double (int32, double, string) through our engine in process, a
        direct C function pointer, raw libffi and Python's ctypes. Plugins are generated,
        compiled with $CC (default cc) and cached under $TMPDIR.

          --quick           fewer iterations and plugins (a smoke run, not for BENCHMARKS.md)
          --markdown        print the BENCHMARKS.md results sections instead of the table
          --workers-only    only the plugin-worker part
          --languages       only the language rows: one plugin written in C, C++ (plugin.hpp), Rust
                            (rust-sdk) and Swift (PlugboardSDK), N plugins in one library each
                            (N = 1, 10, 100; built with cc, c++, cargo and swift build), dispatched
                            to in process; prints the BENCHMARKS.md rows
          --decorators      only the decorator rows: dispatch to 10 C plugins through hosts with no
                            decorator, each one alone and all three (ratios to none), and a log
                            line from the dispatch thread and from a plugin thread, confined or not
          --state           only the saved-state rows: PluginHost.saveState and restoreState for 100
                            plugins with 1 KiB each, against writing (temporary file, fsync, rename,
                            fsync of the folder) and reading the same 100 files with plain system calls
          --calls-only      only the plugin-function call part
          --bus             only the notification bus rows: ns per post → delivery to 1, 10, 100
                            observers in process (against a C loop calling the same callbacks) and
                            in one worker (against the channel floor's round trips); prints them
          --plugboard PATH  the plugboard CLI to time (default: next to this executable)
          --include DIR     the Plugboard C headers (default: the package's include/)
          --profile-dispatch PLUGINS EVENTS
                            only send EVENTS willFinishLaunching and EVENTS memory warnings
                            to PLUGINS loaded plugins, ours then the C loop (for callgrind)
          --timing per-call|per-event
                            the host's timing for --profile-dispatch (default per-call)
          --read-calls      with --profile-dispatch: read each report's `calls` (built when read)
          --profile-calls CALLS
                            only call weigh(3, 2.5, "abc") CALLS times through our engine
                            (CallBenchmark.timeEngine), then through raw libffi (pbb_call_ffi),
                            for callgrind
          --help            this text
        """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws -> BenchmarkOptions {
        var options = BenchmarkOptions()
        var rest = arguments[...]
        /// The argument after `flag`.
        func value(for flag: String) throws -> String {
            guard let value = rest.popFirst(), !value.isEmpty else {
                throw BenchmarkError("\(flag) needs a value\n\n\(usage)")
            }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": options.quick = true
            case "--markdown": options.markdown = true
            case "--workers-only": options.workersOnly = true
            case "--languages": options.languages = true
            case "--decorators": options.decorators = true
            case "--state": options.state = true
            case "--bus": options.bus = true
            case "--calls-only": options.callsOnly = true
            case "--help", "-h": options.help = true
            case "--plugboard": options.cli = try value(for: argument)
            case "--include": options.include = try value(for: argument)
            case "--profile-dispatch":
                let pluginsText = try value(for: argument), eventsText = try value(for: argument)
                guard let plugins = Int(pluginsText), plugins > 0, plugins <= 10_000,
                      let events = UInt64(eventsText), events > 0 else {
                    throw BenchmarkError("--profile-dispatch takes a plugin count (1…10000) and an event count (> 0)")
                }
                options.profile = (plugins, events)
            case "--read-calls": options.profileReadsCalls = true
            case "--profile-calls":
                guard let calls = UInt64(try value(for: argument)), calls > 0 else {
                    throw BenchmarkError("--profile-calls takes a call count (> 0)")
                }
                options.profileCalls = calls
            case "--timing":
                switch try value(for: argument) {
                case "per-call": options.profileTiming = .perCall
                case "per-event": options.profileTiming = .perEvent
                case let other: throw BenchmarkError("--timing takes per-call or per-event, not \(String(reflecting: other))")
                }
            case "--child-load":
                let sideText = try value(for: argument)
                guard let side = LoadSide(rawValue: sideText) else {
                    throw BenchmarkError("--child-load takes host or c, not \(String(reflecting: sideText))")
                }
                options.childLoad = (side, try value(for: argument))
            default:
                throw BenchmarkError("unknown argument \(String(reflecting: argument))\n\n\(usage)")
            }
        }
        if options.workersOnly && options.callsOnly {
            throw BenchmarkError("--workers-only and --calls-only exclude each other")
        }
        return options
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
