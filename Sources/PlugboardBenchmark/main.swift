import ArgumentParser
import CBenchmarkBaseline
import Foundation
import Glibc
import Plugboard

/// The benchmark driver: parses the command line, prepares the plugins, runs
/// the load and dispatch benchmarks and prints the report.
struct BenchmarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugboard-benchmark",
        abstract: "Measures Plugboard against hand-written C over the same plugins.",
        usage: """
            plugboard-benchmark [--quick] [--markdown] [--workers-only | --calls-only] [--plugboard PATH] [--include DIR]
            plugboard-benchmark --languages [--quick]
            plugboard-benchmark --decorators [--quick]
            plugboard-benchmark --state [--quick]
            plugboard-benchmark --bus [--quick] [--plugboard PATH]
            plugboard-benchmark --live [--quick] [--plugboard PATH]
            plugboard-benchmark --profile-dispatch PLUGINS EVENTS [--timing per-call|per-event] [--read-calls]
            plugboard-benchmark --profile-calls CALLS
            plugboard-benchmark --profile-workers PLUGINS ROUNDS [--plugboard PATH]
            """,
        discussion: """
            Measures Plugboard's dispatch cost against a hand-written C loop over the \
            same vtables (1, 10, 100 plugins), and the cost of loading 200 and 1,000 \
            plugin libraries, in this process and in fresh processes. Then plugin \
            workers: dispatch in workers against in process and against a raw C round \
            trip over a socketpair (1, 10, 100 plugins); `plugboard run` start-up and \
            resident memory over 10, 100 and 1,000 libraries with --isolation none and \
            process; `plugboard list` over 1,000 libraries. Then plugin functions: ns per \
            call of double (int32, double, string) through our engine in process, a \
            direct C function pointer, raw libffi and Python's ctypes. Plugins are generated, \
            compiled with $CC (default cc) and cached under $TMPDIR.
            """)

    /// The package root, found from this source file: three levels up
    /// (Sources/PlugboardBenchmark/main.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The package's `include/`.
    static var packageInclude: String { packageRoot + "/include" }

    /// The command line.
    @OptionGroup var options: BenchmarkOptions

    /// Runs the part the options ask for; a failure is reported as `plugboard-benchmark: …` with status 1.
    func run() throws {
        if let child = try options.childLoad() {
            let status = LoadBenchmark.childMain(side: child.side, directory: child.directory)
            if status != 0 { throw ExitCode(status) }
            return
        }
        do {
            try Self.runSelected(options)
        } catch {
            Progress.say("plugboard-benchmark: \(error)")
            throw ExitCode.failure
        }
    }

    /// Runs the part `options` ask for and prints its report.
    static func runSelected(_ options: BenchmarkOptions) throws {
        if options.languages {
            return try runLanguages(options)
        }
        if options.decorators {
            let settings = options.quick ? BenchmarkSettings.quick : BenchmarkSettings.full
            return try DecoratorsBenchmark(targetNanoseconds: settings.targetNanoseconds, repetitions: settings.repetitions)
                .run(factory: PluginFactory(includeDirectory: options.include ?? packageInclude))
        }
        if options.state {
            return try StateBenchmark.run(quick: options.quick)
        }
        if options.bus {
            return try runBus(options)
        }
        if options.live {
            return try runLive(options)
        }
        if let profile = try options.profile() {
            return try runProfile(options, plugins: profile.plugins, events: profile.events)
        }
        if let profile = try options.profileWorkers() {
            return try runWorkersProfile(options, plugins: profile.plugins, rounds: profile.rounds)
        }
        if let calls = try options.profileCalls() {
            let factory = try PluginFactory(includeDirectory: options.include ?? packageInclude)
            let perCall = try CallBenchmark.profile(calls: calls, directory: factory.cacheDirectory + "/calls", factory: factory)
            print("\(calls) calls of weigh, ns per call: ours through a handle \(Format.fixed(perCall.ours, 1)), "
                  + "prepared \(Format.fixed(perCall.prepared, 1)), raw libffi \(Format.fixed(perCall.libffi, 1))")
            return
        }
        let results = try runAll(options)
        print(options.markdown ? Report.markdown(results) : Report.table(results))
    }

    /// Prepares the plugins and runs both benchmarks.
    static func runAll(_ options: BenchmarkOptions) throws -> BenchmarkResults {
        let started = Clock.now()
        let loadAtStart = MachineInfo.loadAverage()
        let settings = options.quick ? BenchmarkSettings.quick : BenchmarkSettings.full
        guard let executable = Files.currentExecutable() else {
            throw BenchmarkError("cannot find this executable through /proc/self/exe")
        }
        let factory = try PluginFactory(includeDirectory: options.include ?? packageInclude)
        let machine = MachineInfo.current(compiler: factory.compiler)

        let dispatchSets = options.callsOnly ? [] : settings.dispatchCounts.map { PluginSet(purpose: "dispatch", count: $0) }
        let loadSets = options.workersOnly || options.callsOnly ? [] : settings.loadCounts.map { PluginSet(purpose: "load", count: $0) }
        /// The set of `count` libraries the worker part uses: a dispatch set, else a load set.
        func workerSet(_ count: Int) -> PluginSet {
            PluginSet(purpose: settings.dispatchCounts.contains(count) ? "dispatch" : "load", count: count)
        }
        let workerSets = options.callsOnly ? [] : settings.startupCounts.map(workerSet).filter { !dispatchSets.contains($0) && !loadSets.contains($0) }
        let jobs = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let compile = try factory.prepare(dispatchSets + loadSets + workerSets, jobs: jobs)

        let cli = options.callsOnly ? nil : try findCLI(options.cli, next: executable)
        // Every `plugboard` started from here inherits it.
        setenv("PLUGBOARD_CACHE_DIR", factory.scanCacheDirectory, 1)
        let emptyDirectory = try factory.emptyDirectory()

        // Loads first, while the process has loaded no plugin library yet.
        let loader = LoadBenchmark(repetitions: settings.repetitions, executable: executable, cli: cli,
                                   emptyDirectory: emptyDirectory)
        var loads: [LoadMeasurement] = []
        var alreadyLoaded = 0
        for set in loadSets {
            Progress.say("load: \(set.count) plugins …")
            loads.append(try loader.run(directory: factory.directory(of: set), paths: factory.paths(of: set),
                                        count: set.count, alreadyLoaded: alreadyLoaded))
            alreadyLoaded += set.count
        }

        let dispatcher = DispatchBenchmark(targetNanoseconds: settings.targetNanoseconds,
                                           repetitions: settings.repetitions)
        var dispatches: [DispatchMeasurement] = []
        for set in options.workersOnly ? [] : dispatchSets {
            Progress.say("dispatch: \(set.count) plugins …")
            dispatches += try dispatcher.run(directory: factory.directory(of: set), count: set.count)
        }

        var workers: WorkerResults?
        if !options.callsOnly, let cli, let worker = findWorker(next: cli) {
            workers = try WorkersBenchmark(settings: settings, cli: cli, worker: worker, emptyDirectory: emptyDirectory)
                .run { factory.directory(of: workerSet($0)) }
        }
        var calls: CallResults?
        if !options.workersOnly {
            Progress.say("calls: ours, direct C, raw libffi, ctypes, into a worker, the channel floor …")
            let worker = try (cli ?? findCLI(options.cli, next: executable)).flatMap(findWorker)
            calls = try CallBenchmark(targetNanoseconds: settings.targetNanoseconds, repetitions: settings.repetitions)
                .run(directory: factory.cacheDirectory + "/calls", factory: factory, worker: worker)
        }
        return BenchmarkResults(quick: options.quick, workersOnly: options.workersOnly, settings: settings,
                                machine: machine, compile: compile, cacheName: factory.cacheName, cliFound: cli != nil,
                                dispatch: dispatches, load: loads, workers: workers, callsOnly: options.callsOnly, calls: calls,
                                nanoseconds: Clock.now() &- started,
                                loadAverages: (loadAtStart, MachineInfo.loadAverage()))
    }

    /// The `plugboard-worker` next to the `plugboard` CLI, else nil with a note.
    static func findWorker(next cli: String) -> String? {
        let worker = Files.parent(cli) + "/plugboard-worker"
        if Files.isExecutable(worker) { return worker }
        Progress.say("note: no plugboard-worker next to \(cli); the worker part is skipped. Build it with "
            + "`swift build -c release --scratch-path .build-bench --product plugboard-worker`.")
        return nil
    }

    /// Loads one dispatch set and sends `events` of each measured event through
    /// our dispatcher, then through the C loop: a short, fixed workload for a
    /// profiler (`valgrind --tool=callgrind --toggle-collect=…`).
    static func runProfile(_ options: BenchmarkOptions, plugins: Int, events: UInt64) throws {
        let directory = try dispatchDirectory(options, plugins: plugins)
        let timing = try options.profileTiming()
        let host = PluginHost(timing: timing)
        defer { host.shutdown() }
        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [directory]))
        try LoadBenchmark.check(reports, plugins: host.plugins.count, count: plugins, directory: directory)
        var error = [CChar](repeating: 0, count: 512)
        guard let baseline = pbb_set_open_directory(directory, &error, error.count) else {
            throw BenchmarkError("the C baseline could not load \(directory)")
        }
        defer { pbb_set_close(baseline) }
        /// ns per plugin per event.
        func per(_ elapsed: UInt64) -> String { Format.fixed(Double(elapsed) / Double(events) / Double(plugins), 1) }
        let launch = DispatchBenchmark.timeWillFinishLaunching(host, events, readingCalls: options.profileReadsCalls)
        let memory = DispatchBenchmark.timeMemoryWarning(host, events, readingCalls: options.profileReadsCalls)
        let cLaunch = pbb_set_will_finish_launching(baseline, events, nil)
        let cMemory = pbb_set_memory_warning(baseline, events)
        // The floor: the C loop reading the clock as the host's timing does.
        var durations = [UInt64](repeating: 0, count: plugins)
        let (floorLaunch, floorMemory) = durations.withUnsafeMutableBufferPointer { durations in
            timing == .perCall
                ? (pbb_set_will_finish_launching_timed(baseline, events, durations.baseAddress, nil),
                   pbb_set_memory_warning_timed(baseline, events, durations.baseAddress))
                : (pbb_set_will_finish_launching_event_timed(baseline, events, nil), pbb_set_memory_warning_event_timed(baseline, events))
        }
        print("\(events) events to \(plugins) plugins (\(timing)\(options.profileReadsCalls ? ", reading calls" : "")), ns per plugin per event: willFinishLaunching ours \(per(launch)), "
            + "C \(per(cLaunch)), floor \(per(floorLaunch)); didReceiveMemoryWarning ours \(per(memory)), C \(per(cMemory)), floor \(per(floorMemory))")
    }

    /// Measures `willFinishLaunching` through `plugins` plugins in workers against the channel floor
    /// for `rounds` interleaved rounds, and prints each round: whether the ratio holds over time.
    static func runWorkersProfile(_ options: BenchmarkOptions, plugins: Int, rounds: Int) throws {
        guard let executable = Files.currentExecutable() else {
            throw BenchmarkError("cannot find this executable through /proc/self/exe")
        }
        guard let cli = try findCLI(options.cli, next: executable), let worker = findWorker(next: cli) else {
            throw BenchmarkError("--profile-workers needs plugboard-worker next to the plugboard CLI")
        }
        let directory = try dispatchDirectory(options, plugins: plugins)
        let target = BenchmarkSettings.full.targetNanoseconds
        print("\(plugins) plugins in workers, ns per plugin per willFinishLaunching, \(target / 1_000_000) ms a side per round:")
        var round = 0
        _ = try WorkerDispatchBenchmark(worker: worker, targetNanoseconds: target, repetitions: rounds)
            .run(directory: directory, count: plugins) { measured in
                round += 1
                print("round \(round): workers \(Format.fixed(measured.workers, 0)), floor \(Format.fixed(measured.floor, 0)), "
                    + "\(Format.fixed(measured.ratio, 2))×; floor with handoffs \(Format.fixed(measured.floorHandoff, 0))")
            }
    }

    /// The folder of the dispatch set of `plugins` libraries, compiled first if it is not cached.
    static func dispatchDirectory(_ options: BenchmarkOptions, plugins: Int) throws -> String {
        let factory = try PluginFactory(includeDirectory: options.include ?? packageInclude)
        let set = PluginSet(purpose: "dispatch", count: plugins)
        _ = try factory.prepare([set], jobs: max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        return factory.directory(of: set)
    }

    /// The `plugboard` CLI: the one given, else the one next to this executable,
    /// else the one `swift build` puts there (built now, in the same scratch
    /// directory and configuration), else nil with a note.
    static func findCLI(_ given: String?, next executable: String) throws -> String? {
        if let given {
            guard Files.isExecutable(given) else { throw BenchmarkError("--plugboard \(given) is not an executable file") }
            return given
        }
        let sibling = Files.parent(executable) + "/plugboard"
        if Files.isExecutable(sibling) { return sibling }
        if buildNext(to: executable, products: ["plugboard", "plugboard-worker"]), Files.isExecutable(sibling) { return sibling }
        Progress.say("note: no plugboard executable next to this one; the CLI column and the worker part are skipped. Build it with "
            + "`swift build -c release --scratch-path .build-bench --product plugboard` (and `--product plugboard-worker`) "
            + "or pass --plugboard PATH.")
        return nil
    }

    /// Builds `products` of this package with `swift build`, in the scratch directory and the
    /// configuration of `executable` (products live in <scratch>/<triple>/<configuration>), so they
    /// land next to it; false when that is not such a folder or a build fails.
    static func buildNext(to executable: String, products: [String]) -> Bool {
        let folder = Files.parent(executable)
        let configuration = (folder as NSString).lastPathComponent
        let scratch = Files.parent(Files.parent(folder))
        guard ["debug", "release"].contains(configuration), Files.exists(packageRoot + "/Package.swift") else { return false }
        Progress.say("building \(products.joined(separator: " and ")) next to this executable …")
        return products.allSatisfy { product in
            let build = try? TimedRun(
                "swift", ["build", "--package-path", packageRoot, "-c", configuration, "--scratch-path", scratch,
                          "--product", product], stderr: .inherit)
            return build?.termination.succeeded == true
        }
    }

    /// The notification bus rows (``BusBenchmark``), in process and, with a `plugboard-worker`, in a worker.
    static func runBus(_ options: BenchmarkOptions) throws {
        guard let executable = Files.currentExecutable() else {
            throw BenchmarkError("cannot find this executable through /proc/self/exe")
        }
        let settings = options.quick ? BenchmarkSettings.quick : BenchmarkSettings.full
        let factory = try PluginFactory(includeDirectory: options.include ?? packageInclude)
        let worker = try findCLI(options.cli, next: executable).flatMap(findWorker)
        let loadAtStart = MachineInfo.loadAverage()
        let measurements = try BusBenchmark(targetNanoseconds: settings.targetNanoseconds, repetitions: settings.repetitions)
            .run(directory: factory.cacheDirectory + "/bus", factory: factory, worker: worker, counts: [1, 10, 100])
        print(BusBenchmark.markdown(measurements, machine: MachineInfo.current(compiler: factory.compiler),
                                    loadAverages: (loadAtStart, MachineInfo.loadAverage())))
    }

    /// The live-plugin rows (``LiveBenchmark``), with the worker next to the CLI and the benchmark's Swift plugin.
    static func runLive(_ options: BenchmarkOptions) throws {
        guard let executable = Files.currentExecutable() else {
            throw BenchmarkError("cannot find this executable through /proc/self/exe")
        }
        let product = "PlugboardBenchmarkSwiftPlugin"
        let swiftLibrary = Files.parent(executable) + "/lib\(product).so"
        guard buildNext(to: executable, products: [product]) || Files.exists(swiftLibrary) else {
            throw BenchmarkError("no \(swiftLibrary); build it with `swift build -c release --scratch-path .build-bench --product \(product)`")
        }
        guard let cli = try findCLI(options.cli, next: executable), let worker = findWorker(next: cli) else {
            throw BenchmarkError("the live rows need the plugboard CLI and its worker")
        }
        let temporary = FileManager.default.temporaryDirectory.path
        try LiveBenchmark(rounds: options.quick ? 5 : 21, reloads: options.quick ? 10 : 100, packageRoot: packageRoot,
                          worker: worker, cli: cli, swiftLibrary: swiftLibrary,
                          root: (temporary.hasSuffix("/") ? temporary : temporary + "/") + "plugboard-benchmark-live").run()
    }

    /// The language rows: builds each language's plugins (``LanguagePlugins``) and measures dispatch to
    /// them in process (``LanguagesBenchmark``); prints the BENCHMARKS.md rows.
    static func runLanguages(_ options: BenchmarkOptions) throws {
        guard let executable = Files.currentExecutable() else {
            throw BenchmarkError("cannot find this executable through /proc/self/exe")
        }
        let settings = options.quick ? BenchmarkSettings.quick : BenchmarkSettings.full
        let product = "PlugboardBenchmarkSwiftPlugin"
        let swiftLibrary = Files.parent(executable) + "/lib\(product).so"
        // Built every time (up to date, it is quick), so the library has the SDK of this checkout.
        guard buildNext(to: executable, products: [product]) || Files.exists(swiftLibrary) else {
            throw BenchmarkError("no \(swiftLibrary); build it with `swift build -c release --scratch-path .build-bench --product \(product)`")
        }
        let plugins = LanguagePlugins(packageRoot: packageRoot, swiftLibrary: swiftLibrary)
        try plugins.build(counts: settings.dispatchCounts)
        let benchmark = LanguagesBenchmark(targetNanoseconds: settings.targetNanoseconds, repetitions: settings.repetitions)
        let loadAtStart = MachineInfo.loadAverage()
        var measurements: [LanguageMeasurement] = []
        for count in settings.dispatchCounts {
            Progress.say("languages: dispatch to \(count) plugin(s) per language …")
            measurements += try benchmark.run(plugins, count: count)
        }
        print(LanguagesBenchmark.markdown(measurements, machine: MachineInfo.current(compiler: "cc"),
                                          loadAverages: (loadAtStart, MachineInfo.loadAverage())))
    }
}

BenchmarkCommand.main()
