import Foundation
import Testing
@testable import Plugboard

/// A call that does not fit the declaration is a typed error naming the function and
/// the cause, and the function is not called.
@Suite struct CallErrorTests {
    private func address(_ function: String, _ plugin: String = "com.example.functions") throws -> FunctionAddress {
        try FunctionAddress(parsing: "\(plugin).\(function)")
    }

    @Test func wrongArgumentCount() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        #expect(fixture.failure("weigh", [.int(1), .double(2)]) == .wrongArgumentCount(try address("weigh"), expected: 3, given: 2))
        #expect(fixture.failure("touch", [.int(1)]) == .wrongArgumentCount(try address("touch"), expected: 0, given: 1))
        #expect(fixture.failure("touch", [.int(1)])?.description == "com.example.functions.touch: takes 0 arguments, 1 given")
        #expect(try fixture.call("touch_count", []) == .int(0), "touch was never called")
    }

    @Test func wrongArgumentTypeNamesThePosition() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let weigh = try address("weigh")
        #expect(fixture.failure("weigh", [.int(1), .string("2"), .string("x")])
            == .wrongArgumentType(weigh, position: 2, expected: .double, given: "string"))
        #expect(fixture.failure("weigh", [.double(1), .double(2), .string("x")])
            == .wrongArgumentType(weigh, position: 1, expected: .int32, given: "double"))
        #expect(fixture.failure("weigh", [.int(1), .double(2), .bytes([])])?.description
            == "com.example.functions.weigh: argument 3 must be string, not a bytes")
        #expect(fixture.failure("flip", [.int(1)]) == .wrongArgumentType(try address("flip"), position: 1, expected: .bool, given: "signed integer"))
        #expect(fixture.failure("echo_double", [.int(1)]) != nil, "no silent integer to double conversion")
        #expect(fixture.failure("echo_pointer", [.uint(1)]) != nil, "a pointer is not an integer")
    }

    /// A value that does not fit the declared width: `300` for an 8-bit integer and friends.
    @Test(arguments: [
        ("echo_int8", PluginValue.int(128)), ("echo_int8", .int(-129)), ("echo_int8", .uint(300)),
        ("echo_uint8", .int(256)), ("echo_uint8", .int(-1)), ("echo_int16", .int(32768)), ("echo_uint16", .uint(65536)),
        ("echo_int32", .int(Int64(Int32.max) + 1)), ("echo_uint32", .uint(UInt64(UInt32.max) + 1)),
        ("echo_int64", .uint(UInt64(Int64.max) + 1)), ("echo_uint64", .int(-1)), ("echo_float", .double(1e39)),
    ])
    func valuesOutOfRange(function: String, value: PluginValue) throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let error = fixture.failure(function, [value])
        guard case .valueOutOfRange(let address, 1, _, let shown)? = error else {
            Issue.record("\(function)(\(value)): \(String(describing: error))")
            return
        }
        #expect(address.function == function)
        #expect(error?.description.hasSuffix(", is out of range for \(function.dropFirst(5))") == true, "\(error?.description ?? "")")
        #expect(!shown.isEmpty)
    }

    @Test func aStringWithANULCannotBePassed() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        // A small string (kept inline) and a large one (in its own storage), NUL in the middle and at the end.
        for text in ["a\u{0}b", String(repeating: "x", count: 1_000) + "\u{0}"] {
            #expect(fixture.failure("echo_string", [.string(text)])
                == .invalidArgument(try address("echo_string"), position: 1, reason: "the string contains a NUL character"),
                "\(text.utf8.count) bytes")
        }
    }

    @Test func unknownAddresses() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        #expect(fixture.failure("nothing", []) == .unknownFunction(try address("nothing")))
        #expect(fixture.failure("ok", [], plugin: "com.example.absent") == .unknownPlugin(try address("ok", "com.example.absent")))
        #expect(fixture.failure("ok", [], plugin: "com.example.absent")?.description
            == "com.example.absent.ok: no plugin com.example.absent is loaded")
        // A plugin built before ABI 1.2 has no functions, whatever lies past its struct_size.
        #expect(fixture.failure("ok", [], plugin: "com.example.oldfunctions") == .unknownFunction(try address("ok", "com.example.oldfunctions")))
    }

    @Test(arguments: [
        ("convert", "expected plugin-id.function"),
        ("com.example.units.", "the function name is empty"),
        ("com.example.units.Convert", "the function name has \"C\" at byte 1"),
        ("units.convert", "units"),
    ])
    func malformedAddresses(text: String, cause: String) {
        #expect(throws: PluginCallError.self) { try FunctionAddress(parsing: text) }
        do {
            _ = try FunctionAddress(parsing: text)
        } catch {
            #expect(error.description.hasPrefix("malformed function address \"\(text)\": "), "\(error)")
            #expect(error.description.contains(cause), "\(error)")
        }
    }

    /// A function refused at load is never called, and the call says why.
    @Test func aRefusedFunctionIsNeverCalled() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let error = fixture.failure("unknown_type", [], plugin: "com.example.badfunctions")
        guard case .refusedFunction(let address, let reason)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(address.function == "unknown_type")
        #expect(reason.contains("column 9: unknown type \"int\""), "\(reason)")
        #expect(fixture.failure("twice", [], plugin: "com.example.badfunctions")?.description.contains("declared 2 times") == true)
        #expect(try fixture.call("ok", [], plugin: "com.example.badfunctions") == .int(42))
    }

    /// With workers, the host knows the declarations and the call is forwarded to the worker.
    @Test func aPluginInAWorkerIsCalledThere() throws {
        let directory = try TemporaryDirectory("plugboard-functions-worker")
        defer { directory.remove() }
        let library = try PluginCompiler.compile(TestPaths.fixtures + "/functions_plugin.c", to: directory.file("libfunctions.so"))
        let worker = TestPaths.worker
        let host = PluginHost(isolation: .workers(worker: worker))
        defer { host.shutdown() }
        let report = host.loadLibrary(at: library)
        try #require(report.status == .loaded, "\(report)")
        #expect(report.plugins.first?.functions.contains { $0.name == "weigh" && $0.signature == "double (int32, double, string)" } == true)
        #expect(try host.call("com.example.functions.weigh", [.int(2), .double(1.5), .string("abc")]) == .double(6))
        #expect(throws: PluginCallError.unknownFunction(try FunctionAddress(parsing: "com.example.functions.nothing"))) {
            try host.call("com.example.functions.nothing", [])
        }
    }
}
