import CBenchmarkBaseline
import Foundation
import Plugboard

/// The sides of the call benchmark, ns per call of `double weigh(int32_t, double, const char *)`.
struct CallResults {
    /// A direct call through a C function pointer of the real type.
    let direct: Double
    /// Raw libffi from C, the `ffi_cif` prepared once.
    let libffi: Double
    /// Our engine in process, through a resolved ``PluginFunctionHandle`` (arguments checked per call).
    let ours: Double
    /// Our engine in process, through a ``PreparedFunctionCall`` (arguments checked once): the goal's side.
    let prepared: Double
    /// A plugin's `invoke` of the function from a function of its own, in process: ns per invocation.
    let invoke: Double
    /// The same through a prepared invocation (`prepare_invoke` once, `call_prepared` per call).
    let preparedInvoke: Double
    /// Python's ctypes on the same function pointer (`argtypes`/`restype` set), timed inside Python.
    let ctypes: Double?
    /// Why ctypes was not measured (no `python3`), if it was not.
    let ctypesNote: String?
    /// Our engine into a worker (`isolation: .workers`), through a resolved handle; nil without a `plugboard-worker`.
    let worker: Double?
    /// The raw channel round trip: one frame of the call's size out over a socketpair, one of the
    /// result's back, to an echo process written in C; nil without a `plugboard-worker`.
    let channelFloor: Double?
    /// Measurements per side; the best is kept.
    let repetitions: Int
    /// The shortest measurement of any side, in ns.
    let shortestMeasurement: UInt64

    /// The prepared call divided by raw libffi (its cif prepared, its arguments set once): the goal's ratio.
    var preparedOverLibffi: Double { prepared / libffi }
    /// ctypes divided by the prepared call: how many times faster ours is.
    var ctypesOverOurs: Double? { ctypes.map { $0 / prepared } }
    /// Into a worker divided by the raw channel round trip: the worker goal's ratio.
    var workerOverFloor: Double? { worker.flatMap { worker in channelFloor.map { worker / $0 } } }
}

/// Measures one plugin function called through our engine in process, a direct C
/// function pointer, raw libffi and Python's ctypes, interleaved, best of the repetitions.
struct CallBenchmark {
    /// The id and the function the generated library declares.
    static let address = "com.benchmark.calls.weigh"

    /// The library: one plugin declaring `double weigh(int32, double, string)`, count * each + strlen(label),
    /// and two loops that invoke it `n` times with `3, 2.5, "abc"` and add up the results (-1 on a failure):
    /// `invoke_loop` through `invoke`, `prepared_loop` through one prepared invocation.
    static let source = """
        #include <plugboard.h>
        #include <string.h>

        static const pb_host_t *host;

        static double weigh(int32_t count, double each, const char *label) { return count * each + (double)strlen(label); }

        static void weigh_arguments(pb_value_t arguments[3]) {
            memset(arguments, 0, 3 * sizeof arguments[0]);
            arguments[0].kind = PB_VALUE_INT;
            arguments[0].integer = 3;
            arguments[1].kind = PB_VALUE_DOUBLE;
            arguments[1].double_value = 2.5;
            arguments[2].kind = PB_VALUE_STRING;
            arguments[2].string = "abc";
        }

        static double invoke_loop(int64_t n) {
            pb_value_t arguments[3], result;
            weigh_arguments(arguments);
            char error[256];
            double total = 0;
            for (int64_t i = 0; i < n; i++) {
                if (host->invoke(host, "com.benchmark.calls.weigh", arguments, 3, &result, error, sizeof error) != PB_OK) return -1;
                total += result.double_value;
            }
            return total;
        }

        static double prepared_loop(int64_t n) {
            pb_value_t arguments[3], result;
            weigh_arguments(arguments);
            char error[256];
            pb_prepared_invoke_t *prepared = NULL;
            if (host->prepare_invoke(host, "com.benchmark.calls.weigh", arguments, 3, &prepared, error, sizeof error) != PB_OK) return -1;
            double total = 0;
            for (int64_t i = 0; i < n && total >= 0; i++) {
                if (host->call_prepared(host, prepared, &result, error, sizeof error) != PB_OK) total = -1;
                else total += result.double_value;
            }
            host->release_prepared(host, prepared);
            return total;
        }

        static const pb_function_t functions[] = {
            {sizeof(pb_function_t), "weigh", "double (int32, double, string)", "count * each + the label's length.",
             (void (*)(void))weigh, NULL},
            {sizeof(pb_function_t), "invoke_loop", "double (int64)", "weigh invoked n times.", (void (*)(void))invoke_loop, NULL},
            {sizeof(pb_function_t), "prepared_loop", "double (int64)", "weigh prepared once, called n times.",
             (void (*)(void))prepared_loop, NULL},
        };

        static bool init(const pb_host_t *given) {
            host = given;
            return true;
        }

        static bool register_plugins(const pb_registrar_t *registrar) {
            pb_plugin_t plugin = {0};
            plugin.struct_size = sizeof plugin;
            plugin.id = "com.benchmark.calls";
            plugin.functions = functions;
            plugin.function_count = sizeof functions / sizeof functions[0];
            return registrar->add_plugin(registrar, &plugin) == PB_OK;
        }

        static const pb_entry_t entry = {
            sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR, init, NULL, register_plugins,
        };

        PB_EXPORT const pb_entry_t *plugboard_entry(void) { return &entry; }
        """

    /// The ctypes side: walks the library from `plugboard_entry` to the declared function
    /// pointer (only that symbol is exported), then times `ITERATIONS` calls with
    /// `time.perf_counter_ns` and prints the elapsed ns and the sum of the results.
    static let python = """
        import ctypes, sys, time
        class Function(ctypes.Structure):
            _fields_ = [("struct_size", ctypes.c_uint32), ("name", ctypes.c_char_p), ("signature", ctypes.c_char_p),
                        ("doc", ctypes.c_char_p), ("function", ctypes.c_void_p), ("release", ctypes.c_void_p)]
        class Plugin(ctypes.Structure):
            _fields_ = ([("struct_size", ctypes.c_uint32), ("priority", ctypes.c_int32), ("id", ctypes.c_char_p),
                         ("name", ctypes.c_char_p), ("version", ctypes.c_char_p), ("ctx", ctypes.c_void_p)]
                        + [("vtable%d" % i, ctypes.c_void_p) for i in range(8)]
                        + [("functions", ctypes.POINTER(Function)), ("function_count", ctypes.c_uint32)])
        AddPlugin = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.POINTER(Plugin))
        class Registrar(ctypes.Structure):
            _fields_ = [("struct_size", ctypes.c_uint32), ("host", ctypes.c_void_p), ("host_data", ctypes.c_void_p),
                        ("add_plugin", AddPlugin)]
        Register = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.POINTER(Registrar))
        class Entry(ctypes.Structure):
            _fields_ = [("struct_size", ctypes.c_uint32), ("abi_major", ctypes.c_uint32), ("abi_minor", ctypes.c_uint32),
                        ("init", ctypes.c_void_p), ("deinit", ctypes.c_void_p), ("register_plugins", Register)]
        library = ctypes.CDLL(sys.argv[1])
        library.plugboard_entry.restype = ctypes.POINTER(Entry)
        found = []
        def add(registrar, plugin):
            for i in range(plugin.contents.function_count):
                if plugin.contents.functions[i].name == b"weigh":
                    found.append(plugin.contents.functions[i].function)
            return 0
        add_plugin = AddPlugin(add)
        registrar = Registrar(ctypes.sizeof(Registrar), None, None, add_plugin)
        library.plugboard_entry().contents.register_plugins(ctypes.byref(registrar))
        weigh = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_int32, ctypes.c_double, ctypes.c_char_p)(found[0])
        iterations = int(sys.argv[2])
        total = 0.0
        start = time.perf_counter_ns()
        for _ in range(iterations):
            total += weigh(3, 2.5, b"abc")
        elapsed = time.perf_counter_ns() - start
        print(elapsed, total)
        """

    /// Each measurement lasts at least this long.
    let targetNanoseconds: UInt64
    /// Measurements per side; the best is kept.
    let repetitions: Int

    /// The measured function, loaded through our host and through the C baseline.
    struct Subjects {
        /// The compiled library.
        let library: String
        /// The function resolved in our host.
        let handle: PluginFunctionHandle
        /// `3, 2.5, "abc"`, built once: no allocation per call.
        let arguments: [PluginValue]
        /// The call with those arguments, prepared.
        let prepared: PreparedFunctionCall
        /// The same function's pointer, found by the C baseline.
        let function: pbb_function_t
        /// The library's `invoke_loop` and `prepared_loop`, resolved in our host.
        let loops: (invoke: PluginFunctionHandle, prepared: PluginFunctionHandle)
    }

    /// Compiles the library into `directory`, loads it into a host and into the C baseline,
    /// checks every side computes 10.5, and runs `body` with them; then unloads both.
    static func withSubjects<Result>(directory: String, factory: PluginFactory, _ body: (Subjects) throws -> Result) throws -> Result {
        try Files.makeDirectory(directory)
        let library = directory + "/libcalls.so"
        try Files.write(Self.source, to: directory + "/calls.c")
        let compile = try TimedRun(factory.compiler, PluginFactory.flags + ["-I", factory.includeDirectory, directory + "/calls.c", "-o", library],
                                   stderr: .inherit)
        guard compile.termination.succeeded else { throw BenchmarkError("\(factory.compiler) failed for the call benchmark's library") }

        // The C baseline first: it runs the library's `init` with a table of its own, without invoke,
        // and our host's `init` afterwards gives the loops the host's.
        var error = [CChar](repeating: 0, count: 512)
        guard let set = pbb_set_open_directory(directory, &error, error.count) else {
            throw BenchmarkError("the C baseline could not load \(directory)")
        }
        defer { pbb_set_close(set) }
        guard let function = pbb_set_function(set, "weigh") else { throw BenchmarkError("the C baseline found no function weigh") }
        let host = PluginHost()
        defer { host.shutdown() }
        let report = host.loadLibrary(at: library)
        guard report.status == .loaded else { throw BenchmarkError("the host did not load \(library): \(report.failure.map(\.description) ?? "")") }
        let handle = try host.function(FunctionAddress(parsing: Self.address))
        let arguments: [PluginValue] = [.int(3), .double(2.5), .string("abc")]

        // Each C side writes its sum only when it made the call (libffi may refuse to prepare it).
        var direct = 0.0, libffi = 0.0
        _ = pbb_call_direct(function, 1, &direct)
        _ = pbb_call_ffi(function, 1, &libffi)
        let prepared = try handle.prepare(arguments)
        let loops = (invoke: try host.function(FunctionAddress(parsing: "com.benchmark.calls.invoke_loop")),
                     prepared: try host.function(FunctionAddress(parsing: "com.benchmark.calls.prepared_loop")))
        guard try handle.call(arguments) == .double(10.5), try prepared.call() == .double(10.5), direct == 10.5, libffi == 10.5,
              try loops.invoke.call([.int(2)]) == .double(21), try loops.prepared.call([.int(2)]) == .double(21) else {
            throw BenchmarkError("a side of the call benchmark does not compute weigh(3, 2.5, \"abc\") = 10.5")
        }
        return try body(Subjects(library: library, handle: handle, arguments: arguments, prepared: prepared, function: function,
                                 loops: loops))
    }

    /// The sizes of the worker protocol's frames for this call, length prefix included:
    /// `function-call` (kind, request id, plugin, function, depth, count, then an int64, a
    /// double and the 3-byte string, each tagged) and `function-result` (kind, request id,
    /// outcome, a tagged double). The channel floor echoes frames of these sizes.
    static let callFrameBytes = 4 + 1 + 4 + 4 + 4 + 4 + 4 + (1 + 8) + (1 + 8) + (1 + 4 + 3)
    static let resultFrameBytes = 4 + 1 + 4 + 1 + (1 + 8)

    /// Measures the sides in turn, `repetitions` times, on the library compiled into `directory`;
    /// with `worker` (a `plugboard-worker`), also the call into a worker and the raw channel floor.
    func run(directory: String, factory: PluginFactory, worker: String?) throws -> CallResults {
        try Self.withSubjects(directory: directory, factory: factory) { subjects in
            try Files.write(Self.python, to: directory + "/calls_ctypes.py")
            guard let worker else { return try measure(subjects, directory: directory, remote: nil) }
            let host = PluginHost(isolation: .workers(worker: worker))
            defer { host.shutdown() }
            let report = host.loadLibrary(at: subjects.library)
            guard report.status == .loaded else {
                throw BenchmarkError("a worker did not load \(subjects.library): \(report.failure.map(\.description) ?? "")")
            }
            let handle = try host.function(FunctionAddress(parsing: Self.address))
            guard try handle.call(subjects.arguments) == .double(10.5) else {
                throw BenchmarkError("the call into a worker does not compute weigh(3, 2.5, \"abc\") = 10.5")
            }
            var error = [CChar](repeating: 0, count: 512)
            guard let floor = pbb_floor_open(1, Self.callFrameBytes, Self.resultFrameBytes, &error, error.count),
                  pbb_floor_round_trips(floor, 1) > 0 else {
                throw BenchmarkError("cannot open the channel floor: " + String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            defer { pbb_floor_close(floor) }
            return try measure(subjects, directory: directory, remote: (handle, floor))
        }
    }

    /// Makes `calls` calls through our engine's handle, then `calls` through a prepared call, then
    /// `calls` through raw libffi, one loop each: a fixed workload for a profiler
    /// (`valgrind --tool=callgrind --toggle-collect=…`). Returns each side's ns per call.
    static func profile(calls: UInt64, directory: String, factory: PluginFactory) throws -> (ours: Double, prepared: Double, libffi: Double) {
        try withSubjects(directory: directory, factory: factory) { subjects in
            let ours = try timeEngine(subjects.handle, subjects.arguments, calls)
            let prepared = try timePrepared(subjects.prepared, calls)
            var sum = 0.0
            let libffi = pbb_call_ffi(subjects.function, calls, &sum)
            return (Double(ours) / Double(calls), Double(prepared) / Double(calls), Double(libffi) / Double(calls))
        }
    }

    /// Measures `subjects`, ctypes and, with `remote`, the call into a worker and the channel floor,
    /// interleaved, best of the repetitions.
    private func measure(_ subjects: Subjects, directory: String,
                         remote: (handle: PluginFunctionHandle, floor: OpaquePointer)?) throws -> CallResults {
        let (library, handle, arguments, function) = (subjects.library, subjects.handle, subjects.arguments, subjects.function)
        let prepared = subjects.prepared
        var sum = 0.0
        var failure: PluginCallError?
        func engine(_ handle: PluginFunctionHandle) -> (UInt64) -> UInt64 {
            { iterations in
                do throws(PluginCallError) {
                    return try Self.timeEngine(handle, arguments, iterations)
                } catch {
                    failure = error
                    return UInt64.max
                }
            }
        }
        /// A loop function of the library, called once for all the iterations.
        func loop(_ function: PluginFunctionHandle) -> (UInt64) -> UInt64 {
            { iterations in
                let start = Clock.now()
                let total = try? function.call([.int(Int64(iterations))])
                let elapsed = Clock.now() &- start
                if total != .double(10.5 * Double(iterations)) { failure = .invalidResult(function.address, reason: "the loop failed") }
                return elapsed
            }
        }
        var floorFailed = false
        var bodies: [(UInt64) -> UInt64] = [
            { pbb_call_direct(function, $0, &sum) },
            { pbb_call_ffi(function, $0, &sum) },
            engine(handle),
            { iterations in
                do throws(PluginCallError) {
                    return try Self.timePrepared(prepared, iterations)
                } catch {
                    failure = error
                    return UInt64.max
                }
            },
            loop(subjects.loops.invoke),
            loop(subjects.loops.prepared),
        ]
        if let remote {
            bodies.append(engine(remote.handle))
            bodies.append { iterations in
                let elapsed = pbb_floor_round_trips(remote.floor, iterations)
                if elapsed == 0 { floorFailed = true }
                return elapsed == 0 ? UInt64.max : elapsed
            }
        }
        let sampler = Sampler(targetNanoseconds: targetNanoseconds)
        var states = bodies.map { sampler.side($0) }
        let python = (try? TimedRun("python3", ["-c", "import ctypes"]))?.termination.succeeded == true
        var ctypes = Double.infinity
        var ctypesIterations: UInt64 = 20_000
        for _ in 0..<repetitions {
            for index in bodies.indices { sampler.measureOnce(bodies[index], &states[index]) }
            if python {
                let (elapsed, iterations) = try ctypesMeasurement(directory: directory, library: library, iterations: &ctypesIterations)
                ctypes = min(ctypes, Double(elapsed) / Double(iterations))
            }
        }
        if let failure { throw BenchmarkError("our engine failed: \(failure)") }
        if floorFailed { throw BenchmarkError("the channel floor's echo process failed") }
        blackHole(sum)
        return CallResults(direct: states[0].best, libffi: states[1].best, ours: states[2].best, prepared: states[3].best,
                           invoke: states[4].best, preparedInvoke: states[5].best,
                           ctypes: python ? ctypes : nil, ctypesNote: python ? nil : "python3 not found",
                           worker: remote == nil ? nil : states[6].best, channelFloor: remote == nil ? nil : states[7].best,
                           repetitions: repetitions, shortestMeasurement: states.map(\.shortest).min() ?? 0)
    }

    /// One ctypes measurement of at least the target duration (more calls until it is); the elapsed ns and the calls.
    private func ctypesMeasurement(directory: String, library: String, iterations: inout UInt64) throws -> (UInt64, UInt64) {
        while true {
            let run = try TimedRun("python3", [directory + "/calls_ctypes.py", library, String(iterations)], captureOutput: true,
                                   stderr: .inherit)
            let fields = run.output.split(separator: " ")
            guard run.termination.succeeded, fields.count == 2, let elapsed = UInt64(fields[0]),
                  Double(fields[1].trimmingCharacters(in: .whitespacesAndNewlines)) == 10.5 * Double(iterations) else {
                throw BenchmarkError("the ctypes side failed (\(run.termination)): \(run.output)")
            }
            if elapsed >= targetNanoseconds { return (elapsed, iterations) }
            iterations = max(iterations * 2, UInt64(Double(iterations) * Double(targetNanoseconds) * 1.25 / Double(max(elapsed, 1))))
        }
    }

    /// Times `iterations` calls of `handle` with `arguments` (built once: no allocation per call), adding up the results.
    @inline(never)
    static func timeEngine(_ handle: PluginFunctionHandle, _ arguments: [PluginValue], _ iterations: UInt64) throws(PluginCallError) -> UInt64 {
        var total = 0.0
        let start = Clock.now()
        for _ in 0..<iterations {
            if case .double(let value) = try handle.call(arguments) { total += value }
        }
        let elapsed = Clock.now() &- start
        blackHole(total)
        return elapsed
    }

    /// Times `iterations` calls of `prepared`, adding up the results.
    @inline(never)
    static func timePrepared(_ prepared: PreparedFunctionCall, _ iterations: UInt64) throws(PluginCallError) -> UInt64 {
        var total = 0.0
        let start = Clock.now()
        for _ in 0..<iterations {
            if case .double(let value) = try prepared.call() { total += value }
        }
        let elapsed = Clock.now() &- start
        blackHole(total)
        return elapsed
    }
}
