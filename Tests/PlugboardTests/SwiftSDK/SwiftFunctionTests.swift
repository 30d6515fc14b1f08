import Testing
@testable import Plugboard

/// Functions declared with PlugboardSDK's `PluginFunction` (Fixtures/swift-functions, the
/// test-only `.dynamic` product SwiftFunctionsPlugin): signatures derived from the closures'
/// Swift types, every kind of value through `PluginHost.call` in process (through the SDK's
/// libffi closures), and the fail value and log line of a function that throws.
@Suite struct SwiftFunctionTests {
    private static let id = "com.example.swiftfunctions"

    private struct Loaded {
        let directory: TemporaryDirectory
        let host: PluginHost
        let log: CallLog
        let report: LoadReport

        init() throws {
            directory = try TemporaryDirectory("plugboard-swift-functions")
            let library = try SwiftPackageLibraries.copy(SwiftPackageLibraries.functions, into: directory.path)
            let log = CallLog()
            self.log = log
            host = PluginHost { record in log.record("\(record.plugin ?? "-") \(record.level.rawValue) \(record.message)") }
            report = host.loadLibrary(at: library)
            try #require(report.status == .loaded, "\(report)")
        }

        func call(_ function: String, _ arguments: [PluginValue] = []) throws -> PluginValue {
            try host.call("\(SwiftFunctionTests.id).\(function)", arguments)
        }

        func remove() {
            host.shutdown()
            directory.remove()
        }
    }

    @Test func signaturesAreDerivedFromTheClosureTypes() throws {
        let loaded = try Loaded()
        defer { loaded.remove() }
        let plugin = try #require(loaded.report.plugins.first)
        #expect(plugin.refusedFunctions == [])
        let signatures = Dictionary(uniqueKeysWithValues: plugin.functions.map { ($0.name, $0.signature) })
        #expect(signatures == [
            "scale": "double (double, int32)", "negate8": "int8 (int8)", "add64": "uint64 (uint64, uint64)",
            "is_empty": "bool (string)", "half": "float (float)", "greet": "string (string)",
            "reversed": "bytes (bytes, uint8)", "same": "pointer (pointer)", "count": "int32 ()",
            "reset": "void ()", "fail_double": "double (string)", "fail_string": "string ()", "fail_int": "int64 ()",
            "fail_bytes": "bytes ()", "fail_void": "void ()",
        ])
        #expect(plugin.functions.first { $0.name == "scale" }?.doc == "value times factor")
        #expect(plugin.functions.first { $0.name == "negate8" }?.doc == "")
    }

    @Test func everyKindOfValueCrossesBothWays() throws {
        let loaded = try Loaded()
        defer { loaded.remove() }
        #expect(try loaded.call("scale", [.double(2.5), .int(-4)]) == .double(-10))
        #expect(try loaded.call("scale", [.double(1), .int(3)]) == .double(3))
        #expect(try loaded.call("count") == .int(2), "member functions share the plugin object")
        #expect(try loaded.call("reset") == .void)
        #expect(try loaded.call("count") == .int(0))
        #expect(try loaded.call("negate8", [.int(-127)]) == .int(127))
        #expect(try loaded.call("negate8", [.int(5)]) == .int(-5))
        #expect(try loaded.call("add64", [.uint(UInt64.max - 1), .uint(1)]) == .uint(UInt64.max))
        #expect(try loaded.call("is_empty", [.string("")]) == .bool(true))
        #expect(try loaded.call("is_empty", [.string("ü")]) == .bool(false))
        #expect(try loaded.call("half", [.float(-3)]) == .float(-1.5))
        #expect(try loaded.call("greet", [.string("Zoë")]) == .string("hello, Zoë"))
        #expect(try loaded.call("reversed", [.bytes([1, 2, 250]), .uint(5)]) == .bytes([255, 7, 6]))
        #expect(try loaded.call("reversed", [.bytes([]), .uint(1)]) == .bytes([]))
        #expect(try loaded.call("same", [.pointer(0x1234_5678)]) == .pointer(0x1234_5678))
        #expect(loaded.log.all.isEmpty, "\(loaded.log.all)")
    }

    @Test func anErrorIsLoggedAndAnsweredWithTheFailValue() throws {
        let loaded = try Loaded()
        defer { loaded.remove() }
        guard case .double(let nan) = try loaded.call("fail_double", [.string("out of range")]) else {
            throw TestFailure("fail_double returned no double")
        }
        #expect(nan.isNaN)
        #expect(try loaded.call("fail_string") == .string(""))
        #expect(try loaded.call("fail_int") == .int(0))
        #expect(try loaded.call("fail_bytes") == .bytes([]))
        #expect(try loaded.call("fail_void") == .void)
        #expect(try loaded.call("greet", [.string("again")]) == .string("hello, again"), "the plugin still works")
        let prefix = "\(Self.id) error "
        #expect(loaded.log.all == [
            prefix + "error in function fail_double: out of range; answered NaN",
            prefix + "error in function fail_string: the string result contains a NUL byte; answered \"\"",
            prefix + "error in function fail_int: no int; answered 0",
            prefix + "error in function fail_bytes: no bytes; answered empty bytes",
            prefix + "error in function fail_void: no void; answered nothing",
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

    /// `PlugboardHost.invoke` (Fixtures/swift-invoke) calls plugins/unit-converter's convert at
    /// launch, and an unknown function throws an `InvokeError` with the host's status and sentence.
    @Test(arguments: ["none", "process"])
    func invokeCallsAnotherPluginsFunction(isolation: String) throws {
        let workspace = try Workspace("swift-invoke-\(isolation)")
        defer { workspace.remove() }
        try SwiftPackageLibraries.copy(SwiftPackageLibraries.invoke, into: workspace.plugins)
        let logs = try ConverterCallerRun.logs(of: "com.example.swiftcaller", isolation: isolation, in: workspace)
        #expect(logs == ["3 ft = 0.9144000000000001 m", "nosuch: " + ConverterCallerRun.unknownFunction])
    }
}
