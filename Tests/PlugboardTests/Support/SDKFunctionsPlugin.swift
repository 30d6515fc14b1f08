import Testing
@testable import Plugboard

/// The same plugin functions written with each SDK's declarations (Fixtures/functions_cpp_plugin.cpp,
/// Fixtures/rust-functions, Fixtures/SwiftPlugins/swift-functions), loaded in process, and what each must show:
/// signatures derived from the native types, every kind of value both ways through
/// `PluginHost.call`, and a failure logged and answered with the result type's fail value.
struct SDKFunctionsPlugin {
    let id: String
    let directory: TemporaryDirectory
    let host: PluginHost
    let log: CallLog
    let report: LoadReport

    /// The signatures every SDK's fixture declares.
    static let signatures = [
        "scale": "double (double, int32)", "negate8": "int8 (int8)", "add64": "uint64 (uint64, uint64)",
        "is_empty": "bool (string)", "half": "float (float)", "greet": "string (string)",
        "reversed": "bytes (bytes, uint8)", "same": "pointer (pointer)", "count": "int32 ()",
        "reset": "void ()", "fail_double": "double (string)", "fail_string": "string ()", "fail_int": "int64 ()",
        "fail_bytes": "bytes ()", "fail_void": "void ()",
    ]

    /// Builds the plugin's library with `build` into a new temporary directory named after `label`, and loads it.
    init(id: String, label: String, build: (TemporaryDirectory) throws -> String) throws {
        self.id = id
        directory = try TemporaryDirectory(label)
        let library = try build(directory)
        let log = CallLog()
        self.log = log
        host = PluginHost { record in log.record("\(record.plugin ?? "-") \(record.level.rawValue) \(record.message)") }
        report = host.loadLibrary(at: library)
        try #require(report.status == .loaded, "\(report)")
    }

    /// Calls the plugin's `function`.
    func call(_ function: String, _ arguments: [PluginValue] = []) throws -> PluginValue {
        try host.call("\(id).\(function)", arguments)
    }

    /// The declared signatures are ``signatures`` plus `extra`; `scale` carries its doc, `undocumented` none.
    func expectSignatures(extra: [String: String] = [:], undocumented: String) throws {
        let plugin = try #require(report.plugins.first)
        #expect(plugin.refusedFunctions == [])
        let declared = Dictionary(uniqueKeysWithValues: plugin.functions.map { ($0.name, $0.signature) })
        #expect(declared == Self.signatures.merging(extra) { $1 })
        #expect(plugin.functions.first { $0.name == "scale" }?.doc == "value times factor")
        #expect(plugin.functions.first { $0.name == undocumented }?.doc == "")
    }

    /// Every kind of value crosses both ways, with nothing logged.
    func expectEveryKindOfValue() throws {
        #expect(try call("scale", [.double(2.5), .int(-4)]) == .double(-10))
        #expect(try call("scale", [.double(1), .int(3)]) == .double(3))
        #expect(try call("count") == .int(2), "the functions share the plugin's state")
        #expect(try call("reset") == .void)
        #expect(try call("count") == .int(0))
        #expect(try call("negate8", [.int(-127)]) == .int(127))
        #expect(try call("negate8", [.int(5)]) == .int(-5))
        #expect(try call("add64", [.uint(UInt64.max - 1), .uint(1)]) == .uint(UInt64.max))
        #expect(try call("is_empty", [.string("")]) == .bool(true))
        #expect(try call("is_empty", [.string("ü")]) == .bool(false))
        #expect(try call("half", [.float(-3)]) == .float(-1.5))
        #expect(try call("greet", [.string("Zoë")]) == .string("hello, Zoë"))
        #expect(try call("reversed", [.bytes([1, 2, 250]), .uint(5)]) == .bytes([255, 7, 6]))
        #expect(try call("reversed", [.bytes([]), .uint(1)]) == .bytes([]))
        #expect(try call("same", [.pointer(0x1234_5678)]) == .pointer(0x1234_5678))
        #expect(log.all.isEmpty, "\(log.all)")
    }

    /// Each `fail_*` function answers its type's fail value, the plugin still works, and the
    /// plugin logged `lines` (without the `<id> error ` prefix), one per failure, in order.
    func expectFailValues(logged lines: [String]) throws {
        guard case .double(let nan) = try call("fail_double", [.string("out of range")]) else {
            throw TestFailure("fail_double returned no double")
        }
        #expect(nan.isNaN)
        #expect(try call("fail_string") == .string(""))
        #expect(try call("fail_int") == .int(0))
        #expect(try call("fail_bytes") == .bytes([]))
        #expect(try call("fail_void") == .void)
        #expect(try call("greet", [.string("again")]) == .string("hello, again"), "the plugin still works")
        #expect(log.all == lines.map { "\(id) error " + $0 })
    }

    func remove() {
        host.shutdown()
        directory.remove()
    }
}
