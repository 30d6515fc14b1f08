import Glibc
import Synchronization
import Testing
@testable import Plugboard

/// A plugin function that crashes or does not return, in process: the fault line and
/// the call-timeout warning name the plugin, the function and the library, as for
/// every other plugin call, whether the call is prepared or not.
@Suite struct FunctionFaultTests {
    @Test(arguments: [false, true])
    func aCrashNamesThePluginAndTheFunction(prepared: Bool) async throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let library = fixture.library
        let result = await #expect(processExitsWith: .signal(SIGSEGV), observing: [\.standardErrorContent]) {
            [library = library as String, prepared = prepared as Bool] in
            FaultReporter.install()
            let host = PluginHost()
            _ = host.loadLibrary(at: library)
            let handle = try? host.function(FunctionAddress(parsing: "com.example.functions.crash"))
            _ = try? prepared ? handle?.prepare([]).call() : handle?.call([])
        }
        let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(errors.contains("plugboard: com.example.functions crashed with SIGSEGV in function crash (\(library))\n"), "\(errors)")
    }

    /// The call timeout's watchdog sees a function still running: the function waits on a
    /// pipe that the test writes to once the warning arrives (no timed assertion).
    @Test(arguments: [false, true])
    func aCallPastTheTimeoutIsNamed(prepared: Bool) throws {
        let directory = try TemporaryDirectory("plugboard-functions-timeout")
        defer { directory.remove() }
        let library = try PluginCompiler.compile(TestPaths.fixtures + "/functions_plugin.c", to: directory.file("libfunctions.so"))
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let writeEnd = ends[1]
        let warnings = Warnings()
        let host = PluginHost(callTimeout: .milliseconds(100)) { record in
            guard record.message.contains("did not return") else { return }
            warnings.lines.withLock { $0.append(record.message) }
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
        defer { host.shutdown() }
        try #require(host.loadLibrary(at: library).status == .loaded)
        let handle = try host.function(FunctionAddress(parsing: "com.example.functions.wait_readable"))
        let arguments: [PluginValue] = [.int(Int64(ends[0]))]
        #expect(try (prepared ? handle.prepare(arguments).call() : handle.call(arguments)) == .bool(true),
                "the watchdog's warning came within 60 s")
        let seen = warnings.lines.withLock { $0 }
        #expect(seen.first?.hasPrefix("com.example.functions did not return from function wait_readable within 0.1 s") == true, "\(seen)")
    }
}

/// The warnings a host's log handler received, from any thread.
private final class Warnings: Sendable {
    let lines = Mutex<[String]>([])
}
