import CBenchmarkBaseline
import Glibc
import Plugboard

/// One row of the bus benchmark: ns per post → delivery to N observers, ours and the baseline.
struct BusMeasurement {
    let observers: Int
    /// Where the observers run: in process, or in one worker.
    let inWorker: Bool
    let timing: CallTiming
    /// Best ns per notification (posted by the host, delivered to every observer).
    let ours: Double
    /// The baseline's ns for the same: the C loop calling the same callbacks, or the channel floor's round trips.
    let baseline: Double
}

/// The notification bus: the host posts `com.bench.tick` and delivers it (`deliverNotifications()`) to
/// N observers (N = 1, 10, 100; one library of N plugins, each observing once), in process and in one
/// worker. Baselines: in process, a C loop in the same library calling the same callbacks N times per
/// notification; in a worker, N raw round trips of `deliver`/`delivered`-sized frames over a socketpair
/// with the host's thread handoff (the channel floor of the worker benchmark).
struct BusBenchmark {
    let targetNanoseconds: UInt64
    let repetitions: Int

    /// The observers' library; `OBSERVERS` plugins, each observing `com.bench.tick` at will-finish-launching
    /// with a callback that counts; `bench_bus_baseline` calls the same callbacks in a C loop.
    static let source = """
        #define _POSIX_C_SOURCE 199309L
        #include <plugboard.h>
        #include <stdio.h>
        #include <time.h>

        static const pb_host_t *host;
        static char ids[OBSERVERS][32];
        static uint64_t counts[OBSERVERS];
        static uint64_t tokens[OBSERVERS];
        /* The callback each observer registered, read through a volatile pointer by the baseline: a real indirect call. */
        static pb_notification_fn callbacks[OBSERVERS];

        static void tick(void *ctx, const char *name, const char *payload, const char *sender) {
            (void)name; (void)payload; (void)sender;
            (*(uint64_t *)ctx)++;
        }

        static bool will_finish(void *ctx, const char *options, size_t length) {
            (void)options; (void)length;
            size_t index = (size_t)((uint64_t *)ctx - counts);
            callbacks[index] = tick;
            return host->notifications->observe(host, ids[index], "com.bench.tick", tick, ctx, &tokens[index]) == PB_OK;
        }

        static const pb_launch_t launch = {sizeof(pb_launch_t), will_finish, NULL};

        static bool init(const pb_host_t *given) { host = given; return true; }

        static bool register_plugins(const pb_registrar_t *registrar) {
            for (int index = 0; index < OBSERVERS; index++) {
                snprintf(ids[index], sizeof ids[index], "com.bench.observer%03d", index);
                pb_plugin_t plugin = {.struct_size = sizeof(pb_plugin_t), .id = ids[index], .name = ids[index],
                                      .version = "1.0", .ctx = &counts[index], .launch = &launch};
                if (registrar->add_plugin(registrar, &plugin) != PB_OK) return false;
            }
            return true;
        }

        static const pb_entry_t entry = {sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR, init, NULL, register_plugins};
        PB_EXPORT const pb_entry_t *plugboard_entry(void) { return &entry; }

        /* The baseline: `iterations` notifications, each to every observer's callback; elapsed ns. */
        PB_EXPORT uint64_t bench_bus_baseline(uint64_t iterations) {
            struct timespec start, end;
            clock_gettime(CLOCK_MONOTONIC, &start);
            for (uint64_t turn = 0; turn < iterations; turn++) {
                for (int index = 0; index < OBSERVERS; index++) {
                    pb_notification_fn callback = ((pb_notification_fn volatile *)callbacks)[index];
                    callback(&counts[index], "com.bench.tick", "{}", "plugboard");
                }
            }
            clock_gettime(CLOCK_MONOTONIC, &end);
            return (uint64_t)((end.tv_sec - start.tv_sec) * 1000000000LL + (end.tv_nsec - start.tv_nsec));
        }
        """

    /// The notification posted.
    static let name = "com.bench.tick"

    /// The frames of one delivery into a worker, length prefix included: `deliver` (kind, request id,
    /// token, name, payload "{}", sender "plugboard", depth) and `delivered` (kind, request id).
    static let deliverFrameBytes = 4 + 1 + 8 + 8 + (4 + name.utf8.count) + (4 + 2) + (4 + 9) + 4
    static let deliveredFrameBytes = 4 + 1 + 8

    /// Compiles the library for each count into `directory` and measures both placements in both timing modes.
    func run(directory: String, factory: PluginFactory, worker: String?, counts: [Int]) throws -> [BusMeasurement] {
        var measurements: [BusMeasurement] = []
        for count in counts {
            let library = directory + "/observers-\(count)/libobservers.so"
            try Files.makeDirectory(directory + "/observers-\(count)")
            try Files.write(Self.source, to: directory + "/observers.c")
            let compile = try TimedRun(factory.compiler, PluginFactory.flags + ["-I", factory.includeDirectory, "-DOBSERVERS=\(count)",
                                                                                directory + "/observers.c", "-o", library], stderr: .inherit)
            guard compile.termination.succeeded else { throw BenchmarkError("\(factory.compiler) failed for the bus benchmark's library") }
            Progress.say("bus: \(count) observer(s) in process …")
            measurements += try measureInProcess(library, count: count)
            if let worker {
                Progress.say("bus: \(count) observer(s) in a worker …")
                measurements += try measureInWorker(library, count: count, worker: worker)
            }
        }
        return measurements
    }

    private func measureInProcess(_ library: String, count: Int) throws -> [BusMeasurement] {
        let host = try Self.host(loading: library, count: count, isolation: .inProcess)
        defer { host.shutdown() }
        guard let handle = dlopen(library, RTLD_NOW | RTLD_NOLOAD), let symbol = dlsym(handle, "bench_bus_baseline") else {
            throw BenchmarkError("the bus benchmark's library has no bench_bus_baseline")
        }
        let baseline = unsafeBitCast(symbol, to: (@convention(c) (UInt64) -> UInt64).self)
        return try [CallTiming.perEvent, .perCall].map { timing in
            host.timing = timing
            let (ours, base) = try measure(host) { baseline($0) }
            return BusMeasurement(observers: count, inWorker: false, timing: timing, ours: ours, baseline: base)
        }
    }

    private func measureInWorker(_ library: String, count: Int, worker: String) throws -> [BusMeasurement] {
        let host = try Self.host(loading: library, count: count, isolation: .workers(worker: worker))
        defer { host.shutdown() }
        var error = [CChar](repeating: 0, count: 512)
        guard let floor = pbb_floor_open(1, Self.deliverFrameBytes, Self.deliveredFrameBytes, &error, error.count) else {
            throw BenchmarkError("cannot open the channel floor: " + String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { pbb_floor_close(floor) }
        return try [CallTiming.perEvent, .perCall].map { timing in
            host.timing = timing
            let (ours, base) = try measure(host) { pbb_floor_round_trips_handoff(floor, $0 * UInt64(count)) }
            return BusMeasurement(observers: count, inWorker: true, timing: timing, ours: ours, baseline: base)
        }
    }

    /// Ours and the baseline, measured in turn `repetitions` times; the best ns per notification of each.
    private func measure(_ host: PluginHost, baseline: @escaping (UInt64) -> UInt64) throws -> (Double, Double) {
        let sampler = Sampler(targetNanoseconds: targetNanoseconds)
        let bodies: [(UInt64) -> UInt64] = [{ Self.time(host, $0) }, baseline]
        var sides = bodies.map { sampler.side($0) }
        for _ in 0..<repetitions {
            for index in bodies.indices { sampler.measureOnce(bodies[index], &sides[index]) }
        }
        return (sides[0].best, sides[1].best)
    }

    /// A host that loaded `library` and whose `count` observers observe (after will-finish-launching),
    /// checked by one delivery.
    private static func host(loading library: String, count: Int, isolation: PluginIsolation) throws -> PluginHost {
        let host = PluginHost(isolation: isolation)
        let report = host.loadLibrary(at: library)
        guard report.status == .loaded, host.plugins.count == count, host.willFinishLaunching().accepted == true else {
            host.shutdown()
            throw BenchmarkError("the bus benchmark's host did not load and launch \(library): \(report.failure.map(\.description) ?? "")")
        }
        try? host.post(name)
        let delivered = host.deliverNotifications().deliveries
        guard delivered.count == count, delivered.allSatisfy({ $0.failure == nil }) else {
            host.shutdown()
            throw BenchmarkError("a notification reached \(delivered.count) of \(count) observers")
        }
        return host
    }

    /// Posts and delivers `iterations` notifications; elapsed ns.
    @inline(never)
    static func time(_ host: PluginHost, _ iterations: UInt64) -> UInt64 {
        var sum = 0
        let start = Clock.now()
        for _ in 0..<iterations {
            try? host.post(name)
            sum &+= host.deliverNotifications().deliveries.count
        }
        let elapsed = Clock.now() &- start
        blackHole(sum)
        return elapsed
    }

    /// The BENCHMARKS.md rows.
    static func markdown(_ measurements: [BusMeasurement], machine: MachineInfo, loadAverages: (start: String, end: String)) -> String {
        var lines = [Report.machineSentence(machine) + " Load average (1/5/15 min): \(loadAverages.start) at the start, "
                     + "\(loadAverages.end) at the end.", "",
                     "ns per notification, posted by the host and delivered to every observer (best of the repetitions):", "",
                     "| observers | where | timing | ours | baseline | ours / baseline | ours per observer |",
                     "|---:|---|---|---:|---:|---:|---:|"]
        for row in measurements {
            let place = row.inWorker ? "one worker (baseline: channel floor)" : "in process (baseline: C loop)"
            lines.append("| \(row.observers) | \(place) | `.\(row.timing)` | \(Format.fixed(row.ours, 1)) | \(Format.fixed(row.baseline, 1)) | "
                         + "\(Format.ratio(row.ours / row.baseline)) | \(Format.fixed(row.ours / Double(row.observers), 1)) |")
        }
        return lines.joined(separator: "\n")
    }
}
