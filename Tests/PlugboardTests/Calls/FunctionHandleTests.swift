import Testing
@testable import Plugboard

/// A function resolved once into a handle and called many times.
@Suite struct FunctionHandleTests {
    @Test func aHandleIsResolvedOnceAndCalledManyTimes() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let handle = try fixture.host.function(FunctionAddress(parsing: "com.example.functions.touch"))
        #expect(handle.declaration.name == "touch" && handle.signature.description == "void ()")
        for _ in 0..<1_000 { #expect(try handle.call([]) == .void) }
        #expect(try fixture.call("touch_count", []) == .int(1_000))
        #expect(throws: PluginCallError.wrongArgumentCount(handle.address, expected: 0, given: 1)) { try handle.call([.int(1)]) }
    }

    @Test func aHandleResolvesAgainWhenThePluginsChange() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let handle = try fixture.host.function(FunctionAddress(parsing: "com.example.functions.weigh"))
        #expect(try handle.call([.int(3), .double(2.5), .string("abc")]) == .double(10.5))
        fixture.host.shutdown()
        #expect(throws: PluginCallError.unknownPlugin(handle.address)) { try handle.call([.int(3), .double(2.5), .string("abc")]) }
    }

    @Test func nothingToCallIsThrownWhenResolving() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let missing = try FunctionAddress(parsing: "com.example.functions.missing")
        #expect(throws: PluginCallError.unknownFunction(missing)) { try fixture.host.function(missing) }
        let refused = try FunctionAddress(parsing: "com.example.badfunctions.null_function")
        #expect(throws: PluginCallError.refusedFunction(refused, reason: "the function pointer is NULL")) { try fixture.host.function(refused) }
    }
}
