import Testing
@testable import Plugboard

/// Functions declared with PlugboardSDK's `PluginFunction` (Fixtures/SwiftPlugins/swift-functions,
/// libSwiftFunctionsPlugin.so): signatures derived from the closures'
/// Swift types, every kind of value through `PluginHost.call` in process (through the SDK's
/// libffi closures), and the fail value and log line of a function that throws.
@Suite struct SwiftFunctionTests {
    private static func loaded() throws -> SDKFunctionsPlugin {
        try SDKFunctionsPlugin(id: "com.example.swiftfunctions", label: "plugboard-swift-functions") { directory in
            try SwiftPackageLibraries.copy(SwiftPackageLibraries.functions, into: directory.path)
        }
    }

    @Test func signaturesAreDerivedFromTheClosureTypes() throws {
        let plugin = try Self.loaded()
        defer { plugin.remove() }
        try plugin.expectSignatures(undocumented: "negate8")
    }

    @Test func everyKindOfValueCrossesBothWays() throws {
        let plugin = try Self.loaded()
        defer { plugin.remove() }
        try plugin.expectEveryKindOfValue()
    }

    @Test func anErrorIsLoggedAndAnsweredWithTheFailValue() throws {
        let plugin = try Self.loaded()
        defer { plugin.remove() }
        try plugin.expectFailValues(logged: [
            "error in function fail_double: out of range; answered NaN",
            "error in function fail_string: the string result contains a NUL byte; answered \"\"",
            "error in function fail_int: no int; answered 0",
            "error in function fail_bytes: no bytes; answered empty bytes",
            "error in function fail_void: no void; answered nothing",
        ])
    }

    /// plugins/swift-example's function, through the engine in process.
    @Test func theExampleAnswersByName() throws {
        let directory = try TemporaryDirectory("plugboard-swift-example-call")
        defer { directory.remove() }
        let library = try SwiftPackageLibraries.copy(SwiftPackageLibraries.example, into: directory.path)
        let host = PluginHost()
        defer { host.shutdown() }
        let report = host.loadLibrary(at: library)
        try #require(report.status == .loaded, "\(report)")
        #expect(report.plugins.first?.functions.map { "\($0.name): \($0.signature)" } == ["is_app_link: bool (string)"])
        #expect(try host.call("com.example.swift-links.is_app_link", [.string("swiftapp://item/7")]) == .bool(true))
        #expect(try host.call("com.example.swift-links.is_app_link", [.string("https://example.com/")]) == .bool(false))
        let called = try CLI.run(["call", "--plugin-dir", directory.path, "--isolation", "none",
                                  "com.example.swift-links.is_app_link", "swiftapp://item/7"])
        #expect(called.status == 0 && called.output == "true\n", "\(called.output)\(called.errorOutput)")
    }

    /// `PlugboardHost.invoke` (Fixtures/SwiftPlugins/swift-invoke) calls plugins/unit-converter's convert at
    /// launch, and an unknown function throws an `InvokeError` with the host's status and sentence;
    /// the same through `PlugboardHost.prepare`.
    @Test(arguments: ["none", "process"])
    func invokeCallsAnotherPluginsFunction(isolation: String) throws {
        let workspace = try Workspace("swift-invoke-\(isolation)")
        defer { workspace.remove() }
        try SwiftPackageLibraries.copy(SwiftPackageLibraries.invoke, into: workspace.plugins)
        let logs = try ConverterCallerRun.logs(of: "com.example.swiftcaller", isolation: isolation, in: workspace)
        #expect(logs == ["3 ft = 0.9144000000000001 m", "nosuch: " + ConverterCallerRun.unknownFunction,
                         "prepared: 2 ft = 0.6096 m, 10 ft = 3.048 m", "prepared set: " + ConverterCallerRun.wrongType,
                         "prepared nosuch: " + ConverterCallerRun.unknownFunction])
    }
}
