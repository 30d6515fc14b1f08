import Testing
@testable import Plugboard

/// Functions declared with the Rust SDK's `functions!` (Fixtures/rust-functions, built with
/// `cargo build --offline`): signatures derived from the Rust types, every kind of value
/// through `PluginHost.call` in process, and the fail value and log line of a function that
/// panics or returns what cannot cross.
@Suite struct RustFunctionTests {
    private static func loaded() throws -> SDKFunctionsPlugin {
        try SDKFunctionsPlugin(id: "com.example.rustfunctions", label: "plugboard-rust-functions") { directory in
            try Cargo.buildPlugin("Tests/PlugboardTests/Fixtures/rust-functions", in: directory, into: directory.path)
        }
    }

    @Test func signaturesAreDerivedFromTheRustTypes() throws {
        let plugin = try Self.loaded()
        defer { plugin.remove() }
        try plugin.expectSignatures(extra: ["kind": "string ()", "magic": "bytes ()"], undocumented: "count")
    }

    @Test func everyKindOfValueCrossesBothWays() throws {
        let plugin = try Self.loaded()
        defer { plugin.remove() }
        try plugin.expectEveryKindOfValue()
        // Results the plugin keeps: a static string and a static buffer.
        #expect(try plugin.call("kind") == .string("static"))
        #expect(try plugin.call("magic") == .bytes(Array("PB".utf8)))
    }

    @Test func aPanicOrAnErrorIsLoggedAndAnsweredWithTheFailValue() throws {
        let plugin = try Self.loaded()
        defer { plugin.remove() }
        try plugin.expectFailValues(logged: [
            "panic in function fail_double: out of range; answered NaN",
            "error in function fail_string: the string result contains a NUL byte; answered \"\"",
            "panic in function fail_int: no int; answered 0",
            "panic in function fail_bytes: no bytes; answered empty bytes",
            "panic in function fail_void: no void; answered nothing",
        ])
    }

    /// plugins/rust-example's function `opened` counts the links its plugin opened.
    @Test func theExampleCountsItsLinksByName() throws {
        let directory = try TemporaryDirectory("plugboard-rust-example-call")
        defer { directory.remove() }
        let library = try Cargo.buildPlugin("plugins/rust-example", in: directory, into: directory.path)
        let host = PluginHost()
        defer { host.shutdown() }
        let report = host.loadLibrary(at: library)
        try #require(report.status == .loaded, "\(report)")
        #expect(report.plugins.first?.functions.map { "\($0.name): \($0.signature)" } == ["opened: uint64 ()"])
        #expect(try host.call("com.example.rust-links.opened", []) == .uint(0))
        host.open(url: "rustapp://item/7")
        #expect(try host.call("com.example.rust-links.opened", []) == .uint(1))
        let called = try CLI.run(["call", "--plugin-dir", directory.path, "--isolation", "none", "com.example.rust-links.opened"])
        #expect(called.status == 0 && called.output == "0\n", "\(called.output)\(called.errorOutput)")
    }

    /// `Host::invoke` (Fixtures/rust-invoke) calls plugins/unit-converter's convert at launch, and
    /// an unknown function answers an `InvokeError` with the host's status and sentence, also
    /// prepared (`Host::prepare`); the same plugin observes and posts on the bus (`Host::observe`, `Host::post`).
    @Test(arguments: ["none", "process"])
    func invokeCallsAnotherPluginsFunction(isolation: String) throws {
        let workspace = try Workspace("rust-invoke-\(isolation)")
        defer { workspace.remove() }
        _ = try Cargo.buildPlugin("Tests/PlugboardTests/Fixtures/rust-invoke", in: workspace.root, into: workspace.plugins)
        let logs = try ConverterCallerRun.logs(of: "com.example.rustcaller", isolation: isolation, in: workspace)
        #expect(logs == ["3 ft = 0.9144000000000001 m", "nosuch: " + ConverterCallerRun.unknownFunction,
                         "prepared: 2 ft = 0.6096 m, 10 ft = 3.048 m", "prepared set: " + ConverterCallerRun.wrongType,
                         "prepared nosuch: " + ConverterCallerRun.unknownFunction,
                         "post: the notification name 'not a name' is not valid: the name contains \" \"; only letters, digits, '-', '_' and '.' are allowed; refused",
                         "observe true, post Ok(()), bad post Err(-1)",
                         #"received com.example.rust.news {"from":"rust"} from com.example.rustcaller"#])
    }
}
