import Testing
@testable import Plugboard

/// Functions declared with <plugboard/cpp/function.hpp> (Fixtures/functions_cpp_plugin.cpp):
/// signatures derived from the C++ types, every kind of value through `PluginHost.call`
/// in process, and the fail value and log line of a function that throws.
@Suite struct CppFunctionTests {
    private static func loaded() throws -> SDKFunctionsPlugin {
        try SDKFunctionsPlugin(id: "com.example.cppfunctions", label: "plugboard-cpp-functions") { directory in
            try PluginCompiler.compile(TestPaths.fixtures + "/functions_cpp_plugin.cpp", to: directory.file("libcppfunctions.so"),
                                      cplusplus: true)
        }
    }

    @Test func signaturesAreDerivedFromTheCppTypes() throws {
        let plugin = try Self.loaded()
        defer { plugin.remove() }
        try plugin.expectSignatures(extra: ["kind": "string ()", "magic": "bytes ()"], undocumented: "negate8")
    }

    @Test func everyKindOfValueCrossesBothWays() throws {
        let plugin = try Self.loaded()
        defer { plugin.remove() }
        try plugin.expectEveryKindOfValue()
        // Results the plugin keeps: a static string and a static buffer.
        #expect(try plugin.call("kind") == .string("static"))
        #expect(try plugin.call("magic") == .bytes(Array("PB".utf8)))
    }

    @Test func anExceptionIsLoggedAndAnsweredWithTheFailValue() throws {
        let plugin = try Self.loaded()
        defer { plugin.remove() }
        try plugin.expectFailValues(logged: [
            "exception in function fail_double: out of range; answered NaN",
            "unknown exception in function fail_string; answered \"\"",
            "exception in function fail_int: no int; answered 0",
            "exception in function fail_bytes: no bytes; answered empty bytes",
            "exception in function fail_void: no void; answered nothing",
        ])
    }

    @Test func anUnsupportedTypeDoesNotCompile() throws {
        let result = try run("/usr/bin/env", ["c++", "-std=c++17", "-fsyntax-only", "-DUNSUPPORTED_TYPE", "-I", TestPaths.include,
                                              TestPaths.fixtures + "/functions_cpp_plugin.cpp"])
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("plugboard::function: unsupported argument type"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("plugboard::function: unsupported result type"), "\(result.errorOutput)")
    }

    /// `Plugin::invoke<double>` (Fixtures/invoke_cpp_plugin.cpp) calls plugins/unit-converter's
    /// convert at launch, and an unknown function answers the host's status and sentence; the same
    /// through `Plugin::prepare<double>`.
    @Test(arguments: ["none", "process"])
    func invokeCallsAnotherPluginsFunction(isolation: String) throws {
        let workspace = try Workspace("cpp-invoke-\(isolation)")
        defer { workspace.remove() }
        _ = try PluginCompiler.compile(TestPaths.fixtures + "/invoke_cpp_plugin.cpp", to: workspace.plugins + "/cppcaller.so",
                                       flags: ["-pedantic"], cplusplus: true)
        let logs = try ConverterCallerRun.logs(of: "com.example.cppcaller", isolation: isolation, in: workspace)
        #expect(logs == ["3 ft = 0.9144 m", "nosuch: " + ConverterCallerRun.unknownFunction,
                         "prepared: 2 ft = 0.6096 m, 10 ft = 3.048 m", "prepared set: " + ConverterCallerRun.wrongType,
                         "prepared nosuch: " + ConverterCallerRun.unknownFunction])
    }
}
