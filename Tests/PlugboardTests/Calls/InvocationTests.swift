import Foundation
import Synchronization
import Testing
@testable import Plugboard

/// One plugin calling another's functions through `pb_host_t.invoke`, with `Fixtures/invoke_plugin.c`
/// built twice (com.example.invoke.a and .b, each the other's peer), in every placement: both in the
/// host's process, both in workers of their own, the caller in a worker and the function in process,
/// and the other way round. The CLI loads every library one way (`--isolation`), so the mixed
/// placements are made through the host library (`loadLibrary(at:placement:)`: a worker for one library, the process for the other).
@Suite struct InvocationTests {
    enum Placement: String, CaseIterable, Sendable {
        case bothInProcess, bothInWorkers, callerInWorker, functionInWorker
    }

    /// The pair loaded in `placement`, with what the host logged.
    struct Pair {
        let directory: TemporaryDirectory
        let host: PluginHost
        let log = LogLines()
        let caller: String
        let peer: String

        init(_ placement: Placement) throws {
            directory = try TemporaryDirectory("plugboard-invoke")
            caller = try Self.build("a", peer: "b", in: directory)
            peer = try Self.build("b", peer: "a", in: directory)
            let log = self.log
            let worker = TestPaths.worker
            host = PluginHost(callTimeout: .seconds(60), isolation: placement == .bothInWorkers ? .workers(worker: worker) : .inProcess) {
                record in log.lines.withLock { $0.append((record.plugin.map { "\($0): " } ?? "") + record.message) }
            }
            let reports = switch placement {
            case .bothInProcess, .bothInWorkers: [host.loadLibrary(at: caller), host.loadLibrary(at: peer)]
            case .callerInWorker: [host.loadLibrary(at: caller, placement: .workers(worker: worker)), host.loadLibrary(at: peer)]
            case .functionInWorker: [host.loadLibrary(at: caller), host.loadLibrary(at: peer, placement: .workers(worker: worker))]
            }
            for report in reports { try #require(report.status == .loaded, "\(report)") }
        }

        static func build(_ name: String, peer: String, in directory: TemporaryDirectory) throws -> String {
            try PluginCompiler.compile(TestPaths.fixtures + "/invoke_plugin.c", to: directory.file("lib\(name).so"),
                                       flags: ["-DSELF_ID=\"com.example.invoke.\(name)\"", "-DPEER_ID=\"com.example.invoke.\(peer)\""])
        }

        /// Calls the caller's `function`.
        func call(_ function: String, _ arguments: [PluginValue] = []) throws -> PluginValue {
            try host.call("com.example.invoke.a.\(function)", arguments)
        }

        /// What the host logged so far.
        var lines: [String] { log.lines.withLock { $0 } }

        func remove() {
            host.shutdown()
            directory.remove()
        }
    }

    @Test(arguments: Placement.allCases)
    func invocationsWorkInEveryPlacement(placement: Placement) throws {
        let pair = try Pair(placement)
        defer { pair.remove() }
        #expect(try pair.call("self_twice", [.double(21)]) == .double(42), "a plugin invokes its own function")
        #expect(try pair.call("bounce", [.int(5)]) == .int(5), "a → b → a → b → a → b: a cycle that ends")
        #expect(try pair.call("relay_shout", [.string("héllo")]) == .string("com.example.invoke.b says HéLLO"))
        #expect(try pair.call("threaded", [.double(2.5)]) == .double(5), "from a plugin thread while the caller waits")
        #expect(try pair.call("bad_argument") == .int(-1))
        #expect(try pair.call("bad_kind") == .int(-1))
        #expect(try pair.call("unknown") == .int(-4))
        #expect(try pair.call("cut_error") == .string("malformed function address \"com.example.nob"), "cut, never inside a UTF-8 sequence")
        let lines = pair.lines
        for expected in [
            "bad_argument: status -1: com.example.invoke.b.twice: argument 1 must be double, not a string",
            "bad_kind: status -1: invoke com.example.invoke.b.twice: argument 1: kind 99 is not a PB_VALUE_* an argument takes",
            "unknown: status -4: com.example.nobody.twice: no plugin com.example.nobody is loaded",
        ] {
            #expect(lines.contains("com.example.invoke.a: " + expected), "\(lines)")
        }
    }

    /// Two buffers that fit the value limit each but not together are refused in every placement
    /// (a worker's frame could not carry them), with the host still reachable for the next
    /// invocation; two that fit together go through.
    @Test(arguments: Placement.allCases)
    func argumentsTooLargeTogetherAreRefusedAndTheHostStaysReachable(placement: Placement) throws {
        let pair = try Pair(placement)
        defer { pair.remove() }
        #expect(try pair.call("big_pair", [.uint(40)]) == .int(-1 * 10 + 4), "\(pair.lines)")
        #expect(pair.lines.contains { $0.hasPrefix("com.example.invoke.a: big_pair: status -1: com.example.invoke.b.pair_size: argument 2: "
                                                   + "the string and bytes arguments carry 83886080 bytes together") }, "\(pair.lines)")
        #expect(try pair.call("big_pair", [.uint(8)]) == .int(16_777_216 * 10 + 4), "\(pair.lines)")
        #expect(throws: PluginCallError.self) { try pair.host.call("com.example.invoke.b.pair_size", [.bytes([UInt8](repeating: 0, count: 40 << 20)),
                                                                                                     .bytes([UInt8](repeating: 0, count: 40 << 20))]) }
        #expect(try pair.call("self_twice", [.double(21)]) == .double(42))
        // A prepared call is held to the same limit as each argument is set; it keeps the one it had.
        let prepared = try pair.host.function(FunctionAddress(parsing: "com.example.invoke.b.pair_size")).prepare([PluginValue.bytes([1]), .bytes([2, 3])])
        try prepared.set(0, to: .bytes([UInt8](repeating: 0, count: 40 << 20)))
        #expect(throws: PluginCallError.invalidArgument(prepared.handle.address, position: 2, reason: "with it, the string and bytes arguments would "
                                                         + "carry 83886080 bytes together, over the limit of 67043328")) {
            try prepared.set(1, to: .bytes([UInt8](repeating: 0, count: 40 << 20)))
        }
        #expect(try prepared.call() == .uint(40 << 20 | 2))
    }

    /// A prepared invocation: called many times with an argument set between calls, a string argument
    /// and result, and every misuse answered with its status, in every placement.
    @Test(arguments: Placement.allCases)
    func preparedInvocationsWorkInEveryPlacement(placement: Placement) throws {
        let pair = try Pair(placement)
        defer { pair.remove() }
        #expect(try pair.call("prepared_sum", [.double(1.5), .int(4)]) == .double(2 * (1.5 + 2.5 + 3.5 + 4.5)))
        #expect(try pair.call("prepared_shout", [.string("héllo")]) == .string("FIRST HéLLO"))
        #expect(try pair.call("prepared_misuse") == .int(8), "\(pair.lines)")
        let lines = pair.lines
        for expected in [
            "status -4: com.example.nobody.twice: no plugin com.example.nobody is loaded",
            "status -1: com.example.invoke.b.twice: argument 1 must be double, not a string",
            "status -1: com.example.invoke.b.twice: argument 2: there is no such argument",
            "status -1: call_prepared: 0x",
            "status -1: call_prepared: 0xdead0 is no prepared invocation of ",
            "status -1: set_prepared_argument: NULL is no prepared invocation of ",
        ] {
            #expect(lines.contains { $0.hasPrefix("com.example.invoke.a: prepared_misuse: " + expected) }, "\(expected)\n\(lines)")
        }
    }

    /// Four plugin threads call one prepared invocation at once while another sets its argument and
    /// then releases it under them: every call answers right or, once released, is refused; nothing crashes.
    @Test(arguments: Placement.allCases)
    func aPreparedInvocationIsSharedByThreadsAndReleasedUnderThem(placement: Placement) throws {
        let pair = try Pair(placement)
        defer { pair.remove() }
        #expect(try pair.call("prepared_threads") == .int(0), "\(pair.lines.filter { $0.contains("prepared_threads") })")
    }

    /// A prepared invocation's argument cannot change while a call of it runs (the function reaching
    /// back to set it is refused), and can again when the call returned.
    @Test(arguments: Placement.allCases)
    func anArgumentIsNotSetWhileACallOfItRuns(placement: Placement) throws {
        let pair = try Pair(placement)
        defer { pair.remove() }
        #expect(try pair.call("prepared_reentry") == .int(-3))
        #expect(pair.lines.contains("com.example.invoke.a: set_own_prepared: status -3: com.example.invoke.a.set_own_prepared:"
                                    + " a call of it is running, which reads its arguments"), "\(pair.lines)")
    }

    /// A prepared invocation of a function whose plugin was loaded again reaches the new one; once the
    /// plugin left, its calls fail as a call of an unknown plugin does.
    @Test(arguments: [Placement.functionInWorker, .bothInWorkers])
    func aPreparedInvocationFollowsItsFunctionAcrossAReload(placement: Placement) throws {
        let pair = try Pair(placement)
        defer { pair.remove() }
        #expect(try pair.call("prepare_kept", [.double(3)]) == .int(0))
        #expect(try pair.call("call_kept") == .double(6))
        let reloaded = pair.host.reload(libraryAt: pair.peer)
        #expect(reloaded.kind == .reloaded, "\(reloaded)")
        #expect(try pair.call("call_kept") == .double(6), "\(pair.lines)")
        // The new version runs in a worker as the old one did, whatever the host's own isolation: it can leave.
        #expect(pair.host.unload(libraryAt: pair.peer)?.kind == .left)
        #expect(try pair.call("call_kept") == .double(-4))
        #expect(pair.lines.contains("com.example.invoke.a: call_kept: status -4: com.example.invoke.b.twice:"
                                    + " no plugin com.example.invoke.b is loaded"), "\(pair.lines)")
    }

    /// At launch each plugin invokes its peer's `threaded`, whose thread invokes the first plugin's `twice`
    /// while the first plugin's callback (and the host's dispatch thread) still waits: in a worker, the
    /// call runs beside the busy main thread.
    @Test(arguments: Placement.allCases)
    func aPluginThreadInvokesWhileTheDispatchThreadIsInACallback(placement: Placement) throws {
        let pair = try Pair(placement)
        defer { pair.remove() }
        #expect(pair.host.didFinishLaunching().accepted == true)
        let lines = pair.lines
        #expect(lines.contains("com.example.invoke.a: launch: threaded 8") && lines.contains("com.example.invoke.b: launch: threaded 8"),
                "\(lines)")
    }

    /// A pointer passes only between plugins in one process.
    @Test(arguments: Placement.allCases)
    func aPointerCrossesNoProcess(placement: Placement) throws {
        let pair = try Pair(placement)
        defer { pair.remove() }
        if placement == .bothInProcess {
            #expect(try pair.call("pass_pointer") == .int(0))
            return
        }
        #expect(try pair.call("pass_pointer") == .int(-1))
        #expect(pair.lines.contains("com.example.invoke.a: pass_pointer: status -1: com.example.invoke.b.echo_pointer: argument 1 is a pointer"
                                    + " and com.example.invoke.b runs in another process than the caller, and a pointer cannot cross between processes"),
                "\(pair.lines)")
    }

    /// A cycle without end fails at the documented depth, with a clear error, in every placement: no hang.
    @Test(arguments: Placement.allCases)
    func anEndlessCycleEndsAtTheDepthLimit(placement: Placement) throws {
        let pair = try Pair(placement)
        defer { pair.remove() }
        #expect(try pair.call("bounce", [.int(1000)]) == .int(-3))
        let refusals = pair.lines.filter { $0.contains("invocations are nested more than 16 deep") }
        #expect(refusals.count == 1, "\(pair.lines)")
        #expect(refusals.first?.hasPrefix("com.example.invoke.") == true, "\(refusals)")
    }

    /// A function that crashes in its worker: the caller gets PB_ERR_UNAVAILABLE and a sentence,
    /// and the host reports the worker's crash once.
    @Test(arguments: [Placement.bothInWorkers, .functionInWorker])
    func aCrashingFunctionFailsTheCallAndItsWorkerIsReported(placement: Placement) throws {
        let pair = try Pair(placement)
        defer { pair.remove() }
        #expect(try pair.call("call_crash") == .int(-9))
        let sentence = "com.example.invoke.b crashed with SIGSEGV in function crash (\(pair.peer))"
        let lines = pair.lines
        #expect(lines.filter { $0 == sentence }.count == 1, "\(lines)")
        #expect(lines.contains("com.example.invoke.a: call_crash: status -9: com.example.invoke.b.crash: the call did not complete: \(sentence)"),
                "\(lines)")
    }

    /// An invocation from an atexit handler, after the library's deinit: ignored, status
    /// PB_ERR_WRONG_STATE, and reported once, like every other host service.
    @Test func anInvocationAfterDeinitIsIgnoredAndReportedOnce() throws {
        let workspace = try Workspace("invoke-after-deinit")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("late_invoke.so", in: workspace.plugins,
                                                 ["INVOKE_AT=AT_ATEXIT", "HOSTILE_ID=\"com.hostile.late-invoke\""])
        let result = try CLI.run(["run", "--isolation", "none", "--plugin-dir", workspace.plugins])
        #expect(result.status == 0, "\(result.errorOutput)")
        let warnings = result.errorOutput.split(separator: "\n").filter { $0.hasPrefix("plugboard: warning: ") }
        #expect(warnings == ["plugboard: warning: \(library) called invoke after its deinit; ignored (reported once)"], "\(result.errorOutput)")
        #expect(result.errorOutput.contains("hostile invoke: status -3: invoke: \(library) has ended (its deinit ran, or its init returned false); ignored\n"),
                "\(result.errorOutput)")
    }
}

/// Lines a host's log handler received, from any thread.
final class LogLines: Sendable {
    let lines = Mutex<[String]>([])
}
