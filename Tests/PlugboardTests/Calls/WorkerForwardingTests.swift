import CPlugboard
import Foundation
import PlugboardWorkerProtocol
import Synchronization
import Testing
@testable import Plugboard

/// `PluginHost.call` into a plugin loaded in a worker: forwarded (`function-call`), run there by
/// the same engine, with the same values and the same typed errors as in process; a crash in
/// the function is the worker's crash, reported, withdrawn and restarted as for any callback.
@Suite struct WorkerForwardingTests {
    /// The same calls in process and in a worker give the same results and the same errors.
    @Test func aWorkerAnswersEveryCallAsTheHostDoesInProcess() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker))
        defer { host.shutdown() }
        try #require(host.loadLibrary(at: fixture.library).status == .loaded)
        let calls: [(String, [PluginValue])] = [
            ("flip", [.bool(true)]), ("echo_int8", [.int(-128)]), ("echo_int64", [.int(.min)]),
            ("echo_uint64", [.uint(.max)]), ("echo_float", [.float(.infinity)]), ("echo_double", [.double(-.infinity)]),
            ("minus_one", []), ("two_hundred", []), ("int16_min", []), ("low_int8", [.int(0x1_80)]),
            ("echo_string", [.string("")]), ("echo_string", [.string("Grüße, 世界 🎛️")]), ("greeting", []),
            ("echo_bytes", [.bytes([])]), ("echo_bytes", [.bytes((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })]),
            ("checksum", [.bytes([1, 2, 3]), .uint(7)]), ("touch", []),
            ("mixed", [.int(-1), .uint(2), .int(-3), .uint(4), .int(-5), .uint(6), .int(-7), .uint(8), .float(0.5), .double(0.25), .int(9), .double(10)]),
            // Typed errors, decided in the worker.
            ("echo_int8", [.int(300)]), ("echo_int8", []), ("echo_double", [.string("abc")]), ("echo_string", [.string("a\0b")]),
            ("null_string", []), ("bad_utf8", []), ("null_bytes_with_size", []), ("nothing", []),
        ]
        for (function, arguments) in calls {
            let here = Result { () throws(PluginCallError) in try fixture.call(function, arguments) }
            let there = Result { () throws(PluginCallError) in try host.call("com.example.functions.\(function)", arguments) }
            #expect(here == there, "\(function)\(arguments)")
        }
        let nan = try host.call("com.example.functions.echo_double", [.double(.nan)])
        guard case .double(let value) = nan else { Issue.record("\(nan)"); return }
        #expect(value.isNaN)
    }

    /// A pointer means nothing in another process: refused before the worker is asked.
    @Test func aPointerDoesNotCrossIntoAWorker() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker))
        defer { host.shutdown() }
        try #require(host.loadLibrary(at: fixture.library).status == .loaded)
        #expect(try fixture.call("echo_pointer", [.pointer(0x1234)]) == .pointer(0x1234))
        let error = #expect(throws: PluginCallError.self) { try host.call("com.example.functions.echo_pointer", [.pointer(0x1234)]) }
        #expect(error?.description == "com.example.functions.echo_pointer: argument 1 is a pointer and com.example.functions"
                + " runs in another process than the caller, and a pointer cannot cross between processes")
    }

    /// A crash in a function is the worker's: the call throws with the worker's sentence, the host logs it
    /// once and lists the failure, and `--restart` brings the plugin back in a new process: in a host
    /// whose libraries all run in workers, and for one library placed in a worker by an in-process host.
    @Test(arguments: [false, true])
    func aCrashInAFunctionIsTheWorkersAndItRestarts(placedByTheLibrary: Bool) throws {
        let directory = try TemporaryDirectory("plugboard-functions-crash")
        defer { directory.remove() }
        let library = try PluginCompiler.compile(TestPaths.fixtures + "/functions_plugin.c", to: directory.file("libfunctions.so"))
        let lines = Mutex<[String]>([])
        let workers = PluginIsolation.workers(worker: TestPaths.worker)
        let host = PluginHost(isolation: placedByTheLibrary ? .inProcess : workers, restarts: 1) { record in
            lines.withLock { $0.append(record.message) }
        }
        defer { host.shutdown() }
        try #require(host.loadLibrary(at: library, placement: placedByTheLibrary ? workers : nil).status == .loaded)
        _ = try host.call("com.example.functions.touch", [])
        #expect(try host.call("com.example.functions.touch_count", []) == .int(1))
        let sentence = "com.example.functions crashed with SIGSEGV in function crash (\(library))"
        #expect(throws: PluginCallError.workerEnded(try FunctionAddress(parsing: "com.example.functions.crash"), sentence: sentence)) {
            try host.call("com.example.functions.crash", [])
        }
        #expect(host.failures.map(\.message) == [sentence])
        let logged = lines.withLock { $0 }
        #expect(logged.filter { $0 == sentence }.count == 1, "\(logged)")
        #expect(logged.contains { $0.hasPrefix("restarted the worker of \(library) (restart 1 of 1)") }, "\(logged)")
        #expect(try host.call("com.example.functions.touch_count", []) == .int(0), "a new worker process")
    }

    /// A function call that finds its worker ended while it was asked nothing (a thread of the
    /// library crashed it after the call before returned) names the library and "between calls", as
    /// an event does, not the function called now.
    @Test func aFunctionCallThatFindsItsWorkerEndedBetweenCallsSaysSo() throws {
        let directory = try TemporaryDirectory("plugboard-functions-crash")
        defer { directory.remove() }
        let library = try PluginCompiler.compile(TestPaths.fixtures + "/functions_plugin.c", to: directory.file("libfunctions.so"))
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker)) { _ in }
        defer { host.shutdown() }
        try #require(host.loadLibrary(at: library).status == .loaded)
        _ = try host.call("com.example.functions.crash_soon", [])
        _ = try host.workerEndedByItself(of: library)
        let sentence = "\(library) crashed with SIGSEGV between calls"
        #expect(throws: PluginCallError.workerEnded(try FunctionAddress(parsing: "com.example.functions.touch"), sentence: sentence)) {
            try host.call("com.example.functions.touch", [])
        }
        #expect(host.failures.map(\.message) == [sentence])
    }

    /// A worker's `loaded` carries the stamp of the file it checked, the file at the path, to a host of
    /// 1.9; to an older host, which would call the field trailing bytes, nothing more than the report.
    @Test(arguments: [WorkerProtocolVersion.current, WorkerProtocolVersion(major: 1, minor: 8)])
    func theLoadedReplyCarriesTheFileTheWorkerChecked(hostVersion: WorkerProtocolVersion) throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let connection = try Self.worker(of: fixture.library)
        defer { connection.close(timeout: .seconds(10)) }
        guard let load = Self.greetAndLoad(connection, fixture.library, as: hostVersion) else { return }
        guard case .success(.loaded(_, let stamp)) = load else { Issue.record("\(load)"); return }
        let expected = hostVersion.minor >= WorkerProtocolVersion.loadedFileStampMinor ? try FileStatus.of(fixture.library).stamp : nil
        #expect(stamp == expected)
    }

    /// A `function-call` naming a function the worker does not have is malformed: the worker ends
    /// (exit 71) and the waiting call learns it at once. Also from a host older than the concurrent
    /// channel (1.6), which sends everything on the one channel.
    @Test(arguments: [WorkerProtocolVersion.current, WorkerProtocolVersion(major: 1, minor: 6)])
    func aFunctionCallTheWorkerCannotRunEndsIt(hostVersion: WorkerProtocolVersion) throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let connection = try Self.worker(of: fixture.library)
        defer { connection.close(timeout: .seconds(10)) }
        guard let load = Self.greetAndLoad(connection, fixture.library, as: hostVersion) else { return }
        guard case .success(.loaded) = load else { Issue.record("\(load)"); return }
        let valid = connection.callFunction(.functionCall(plugin: 0, function: 0, depth: 0, arguments: [.bool(false)]), timeout: .seconds(60))
        #expect(valid == .success(.value(.bool(true))), "flip(false), function 0 of plugin 0")
        let outcome = connection.callFunction(.functionCall(plugin: 0, function: 9999, depth: 0, arguments: []), timeout: .seconds(60))
        #expect(outcome == .failure(.exited(status: 71)))
    }

    /// A worker's own request, from a function the host called, is answered on the socket the
    /// handshake chose: the concurrent channel with a host of 1.7, the one channel with an older
    /// host. Here a plugin's `invoke` of a plugin no one loaded, which this host (no invoker) refuses.
    @Test(arguments: [WorkerProtocolVersion.current, WorkerProtocolVersion(major: 1, minor: 6)])
    func aWorkersRequestIsAnsweredWhereTheHandshakeSaid(hostVersion: WorkerProtocolVersion) throws {
        let directory = try TemporaryDirectory("plugboard-forwarding")
        defer { directory.remove() }
        let library = try InvocationTests.Pair.build("a", peer: "b", in: directory)
        let connection = try Self.worker(of: library)
        defer { connection.close(timeout: .seconds(10)) }
        guard let load = Self.greetAndLoad(connection, library, as: hostVersion, abiMinor: 4) else { return }
        guard case .success(.loaded) = load else { Issue.record("\(load)"); return }
        // Function 12 is `unknown`: it invokes com.example.nobody.twice and returns the status.
        let outcome = connection.callFunction(.functionCall(plugin: 0, function: 12, depth: 0, arguments: []), timeout: .seconds(60))
        #expect(outcome == .success(.value(.int(Int64(PB_ERR_UNAVAILABLE)))))
    }

    /// Greets `connection`'s worker as a host of `hostVersion` and C ABI 1.`abiMinor`, and has it load
    /// `library`: the worker's reply; nil, with an issue recorded, when the greeting failed.
    private static func greetAndLoad(_ connection: WorkerConnection, _ library: String, as hostVersion: WorkerProtocolVersion,
                                     abiMinor: UInt32 = 2) -> Result<WorkerMessage, WorkerEnding>? {
        let hello = connection.request(.hello(protocolVersion: hostVersion, hostABIMajor: 1, hostABIMinor: abiMinor), timeout: .seconds(60))
        guard case .success(.helloReply(.current, _)) = hello else {
            Issue.record("\(hello)")
            return nil
        }
        return connection.request(.load(path: library, allowInsecure: false), timeout: .seconds(60))
    }

    /// A confined worker for `library`, started, not yet greeted.
    private static func worker(of library: String) throws -> WorkerConnection {
        let sandbox = try WorkerSandbox.plan(for: [library], mode: .best, support: .kernel, grant: SandboxGrant())
        return try WorkerConnection(library: library, trust: .strict, sandbox: sandbox, worker: TestPaths.worker,
                                    facade: nil, invoker: nil, bus: nil, log: { _ in }, refusals: nil, output: { _ in })
    }
}
