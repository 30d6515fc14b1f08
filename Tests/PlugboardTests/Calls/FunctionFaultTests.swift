import Glibc
import Testing
@testable import Plugboard

/// A plugin function that crashes in process: the fault line names the plugin, the
/// function and the library, as for every other plugin call.
@Suite struct FunctionFaultTests {
    @Test func aCrashNamesThePluginAndTheFunction() async throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let library = fixture.library
        let result = await #expect(processExitsWith: .signal(SIGSEGV), observing: [\.standardErrorContent]) { [library = library as String] in
            FaultReporter.install()
            let host = PluginHost()
            _ = host.loadLibrary(at: library)
            _ = try? host.call("com.example.functions.crash", [])
        }
        let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(errors.contains("plugboard: com.example.functions crashed with SIGSEGV in function crash (\(library))\n"), "\(errors)")
    }
}
