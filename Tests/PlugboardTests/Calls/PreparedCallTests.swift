import Synchronization
import Testing
@testable import Plugboard

/// A call prepared once (``PluginFunctionHandle/prepare(_:)``) and made many times: its
/// arguments checked and converted when set, the calls giving what unprepared calls give,
/// in process and in a worker, with the same errors, records and restarts.
@Suite struct PreparedCallTests {
    /// Calls whose results and errors a prepared call must give as an unprepared one does.
    static let calls: [(String, [PluginValue])] = [
        ("flip", [.bool(true)]), ("echo_int8", [.int(-128)]), ("echo_int64", [.int(.min)]),
        ("echo_uint64", [.uint(.max)]), ("echo_float", [.float(.infinity)]), ("echo_double", [.double(-.infinity)]),
        ("echo_float", [.double(0.5)]), ("echo_int16", [.uint(7)]), ("minus_one", []), ("low_int8", [.int(0x1_80)]),
        ("echo_string", [.string("")]), ("echo_string", [.string("Grüße, 世界 🎛️")]), ("greeting", []),
        ("echo_bytes", [.bytes([])]), ("echo_bytes", [.bytes((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })]),
        ("checksum", [.bytes([1, 2, 3]), .uint(7)]), ("touch", []),
        ("mixed", [.int(-1), .uint(2), .int(-3), .uint(4), .int(-5), .uint(6), .int(-7), .uint(8), .float(0.5), .double(0.25), .int(9), .double(10)]),
        ("echo_int8", [.int(300)]), ("echo_int8", []), ("echo_int8", [.int(1), .int(2)]), ("echo_double", [.string("abc")]),
        ("echo_float", [.double(1e300)]), ("echo_string", [.string("a\0b")]), ("flip", [.void]),
        ("null_string", []), ("bad_utf8", []), ("null_bytes_with_size", []),
    ]

    /// The outcome of preparing `arguments` for `function` of `host` and calling it twice
    /// (the second call reuses the frame): the two outcomes must agree.
    static func prepared(_ host: PluginHost, _ function: String, _ arguments: [PluginValue]) throws -> Result<PluginValue, PluginCallError> {
        let handle = try host.function(FunctionAddress(parsing: "com.example.functions.\(function)"))
        let first = Result { () throws(PluginCallError) in try handle.prepare(arguments).call() }
        guard case .success = first else { return first }
        let call = try handle.prepare(arguments)
        let once = Result { () throws(PluginCallError) in try call.call() }
        let twice = Result { () throws(PluginCallError) in try call.call() }
        #expect(once == twice || function == "touch", "\(function)\(arguments)")
        return once
    }

    /// A host, in process or with workers, that loaded `fixture`'s library.
    static func host(loading fixture: FunctionsFixture, inWorkers: Bool) throws -> PluginHost {
        let host = inWorkers ? PluginHost(isolation: .workers(worker: TestPaths.worker)) : PluginHost()
        try #require(host.loadLibrary(at: fixture.library).status == .loaded)
        return host
    }

    @Test(arguments: [false, true])
    func aPreparedCallGivesWhatAnUnpreparedCallGives(inWorkers: Bool) throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let host = try Self.host(loading: fixture, inWorkers: inWorkers)
        defer { host.shutdown() }
        for (function, arguments) in Self.calls {
            let unprepared = Result { () throws(PluginCallError) in try host.call("com.example.functions.\(function)", arguments) }
            let prepared = try Self.prepared(host, function, arguments)
            #expect(prepared == unprepared, "\(function)\(arguments)")
        }
    }

    /// Setting an argument checks it then: a refused value leaves the argument as it was, a longer
    /// string or buffer grows its buffer, and every call reads the arguments as last set.
    @Test(arguments: [false, true])
    func settingAnArgumentChecksItAndKeepsTheOldValueWhenRefused(inWorkers: Bool) throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let host = try Self.host(loading: fixture, inWorkers: inWorkers)
        defer { host.shutdown() }
        let weigh = try host.function(FunctionAddress(parsing: "com.example.functions.weigh"))
        let call = try weigh.prepare([.int(3), .double(2.5), .string("abc")])
        #expect(try call.call() == .double(10.5))
        for count in 0..<100 {
            try call.set(0, to: .int(Int64(count)))
            #expect(try call.call() == .double(Double(count) * 2.5 + 3))
        }
        try call.set(2, to: .string(String(repeating: "label ", count: 100)))
        #expect(try call.call() == .double(99 * 2.5 + 600))
        try call.set(2, to: .string("ab"))
        #expect(try call.call() == .double(99 * 2.5 + 2))

        #expect(throws: PluginCallError.wrongArgumentType(weigh.address, position: 2, expected: .double, given: "string")) {
            try call.set(1, to: .string("2.5"))
        }
        #expect(throws: PluginCallError.valueOutOfRange(weigh.address, position: 1, expected: .int32, value: "4294967296")) {
            try call.set(0, to: .int(1 << 32))
        }
        #expect(throws: PluginCallError.invalidArgument(weigh.address, position: 3, reason: "the string contains a NUL character")) {
            try call.set(2, to: .string("a much longer label\0with a NUL inside"))
        }
        #expect(throws: PluginCallError.invalidArgument(weigh.address, position: 4,
                                                        reason: "there is no such argument: the signature is double (int32, double, string)")) {
            try call.set(3, to: .int(1))
        }
        #expect(throws: PluginCallError.self) { try call.set(-1, to: .int(1)) }
        #expect(call.arguments == [.int(99), .double(2.5), .string("ab")])
        #expect(try call.call() == .double(99 * 2.5 + 2), "the refused values changed nothing")

        let checksum = try host.function(FunctionAddress(parsing: "com.example.functions.checksum")).prepare([.bytes([]), .uint(0)])
        #expect(try checksum.call() == host.call("com.example.functions.checksum", [.bytes([]), .uint(0)]))
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        try checksum.set(0, to: .bytes(bytes))
        try checksum.set(1, to: .uint(5))
        #expect(try checksum.call() == host.call("com.example.functions.checksum", [.bytes(bytes), .uint(5)]))
        #expect(throws: PluginCallError.wrongArgumentCount(weigh.address, expected: 3, given: 2)) {
            try weigh.prepare([.int(3), .double(2.5)])
        }
    }

    /// A traced plugin's prepared calls are traced as its other calls are, with the arguments as set.
    @Test func aTracedPreparedCallIsTracedWithTheArgumentsAsSet() throws {
        let directory = try TemporaryDirectory("plugboard-prepared-trace")
        defer { directory.remove() }
        let library = try PluginCompiler.compile(TestPaths.fixtures + "/functions_plugin.c", to: directory.file("libfunctions.so"))
        let lines = Mutex<[String]>([])
        let host = PluginHost(decorators: [.tracing(.all)], logHandler: { record in lines.withLock { $0.append(record.message) } })
        defer { host.shutdown() }
        try #require(host.loadLibrary(at: library).status == .loaded)
        let call = try host.function(FunctionAddress(parsing: "com.example.functions.weigh")).prepare([.int(3), .double(2.5), .string("abc")])
        #expect(try call.call() == .double(10.5))
        try call.set(2, to: .string("abcd"))
        #expect(try call.call() == .double(11.5))
        let traces = lines.withLock { $0 }.filter { $0.hasPrefix("trace: function weigh") }
        #expect(traces.count == 2 && traces[0].hasPrefix("trace: function weigh(3, 2.5, \"abc\") → 10.5 in ")
                && traces[1].hasPrefix("trace: function weigh(3, 2.5, \"abcd\") → 11.5 in "), "\(traces)")
    }

    /// The embedding application's code, reached from inside a call (here a log line), that calls or
    /// changes the same prepared call: the call in progress keeps the arguments it was given.
    @Test func aPreparedCallChangedWhileItRunsKeepsItsOwnArguments() throws {
        final class Reentry: @unchecked Sendable {
            var call: PreparedFunctionCall?
            var inner: [PluginValue] = []
        }
        let reentry = Reentry()
        let directory = try TemporaryDirectory("plugboard-prepared-reentry")
        defer { directory.remove() }
        let library = try PluginCompiler.compile(TestPaths.fixtures + "/functions_plugin.c", to: directory.file("libfunctions.so"))
        let long = String(repeating: "x", count: 4096)
        let host = PluginHost(logHandler: { record in
            guard record.message == "length_after_log", let call = reentry.call else { return }
            reentry.call = nil
            try? call.set(0, to: .string(long))
            reentry.inner.append((try? call.call()) ?? .void)
        })
        defer { host.shutdown() }
        try #require(host.loadLibrary(at: library).status == .loaded)
        let call = try host.function(FunctionAddress(parsing: "com.example.functions.length_after_log"))
            .prepare([.string(String(repeating: "a", count: 100))])
        reentry.call = call
        #expect(try call.call() == .uint(100), "the outer call measured its own argument")
        #expect(reentry.inner == [.uint(4096)])
        #expect(call.arguments == [.string(long)])
        #expect(try call.call() == .uint(4096))
    }

    /// A result the host copies and releases is released once per call, prepared or not.
    @Test func aPreparedCallReleasesEachResultOnce() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let before = try fixture.call("released_count", [])
        let echo = try fixture.host.function(FunctionAddress(parsing: "com.example.functions.echo_string")).prepare([.string("x")])
        for _ in 0..<1_000 { #expect(try echo.call() == .string("x")) }
        guard case .int(let count) = before else { Issue.record("\(before)"); return }
        #expect(try fixture.call("released_count", []) == .int(count + 1_000))
    }

    /// A prepared call follows the host's plugins as its handle does: after a shutdown it throws
    /// that the plugin is gone; after a worker's crash and restart it calls the new worker.
    @Test func aPreparedCallFollowsThePluginsItCalls() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker), restarts: 1)
        try #require(host.loadLibrary(at: fixture.library).status == .loaded)
        let touch = try host.function(FunctionAddress(parsing: "com.example.functions.touch")).prepare([])
        let count = try host.function(FunctionAddress(parsing: "com.example.functions.touch_count")).prepare([])
        for _ in 0..<3 { _ = try touch.call() }
        #expect(try count.call() == .int(3))
        let crash = try host.function(FunctionAddress(parsing: "com.example.functions.crash")).prepare([])
        let sentence = "com.example.functions crashed with SIGSEGV in function crash (\(fixture.library))"
        #expect(throws: PluginCallError.workerEnded(crash.handle.address, sentence: sentence)) { try crash.call() }
        #expect(host.failures.map(\.message) == [sentence])
        #expect(try count.call() == .int(0), "resolved again, in the restarted worker")
        host.shutdown()
        #expect(throws: PluginCallError.unknownPlugin(touch.handle.address)) { try touch.call() }
    }
}
