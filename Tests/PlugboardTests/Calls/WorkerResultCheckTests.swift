import Testing
@testable import Plugboard

/// What a worker's function result must be to reach its caller (``FunctionInvoker/isResult(_:of:)``):
/// a value of the declared kind, an integer within the declared range, never a pointer.
@Suite struct WorkerResultCheckTests {
    /// Values a function of each type can return are taken.
    @Test func valuesOfTheDeclaredKindAndRangeAreTaken() {
        let taken: [(PluginValue, FunctionType)] = [
            (.void, .void), (.bool(true), .bool), (.int(-128), .int8), (.int(127), .int8), (.int(Int64.min), .int64),
            (.uint(255), .uint8), (.uint(UInt64.max), .uint64), (.int(-2_147_483_648), .int32), (.float(1.5), .float),
            (.double(-0.5), .double), (.string("text"), .string), (.bytes([1, 2]), .bytes),
        ]
        for (value, type) in taken { #expect(FunctionInvoker.isResult(value, of: type), "\(value) as \(type)") }
    }

    /// Another kind, an integer out of range, a signed value for an unsigned type and any pointer are refused.
    @Test func anythingElseIsRefused() {
        let refused: [(PluginValue, FunctionType)] = [
            (.string("text"), .int32), (.int(5), .string), (.int(128), .int8), (.int(-129), .int8),
            (.int(1 << 40), .int32), (.uint(256), .uint8), (.uint(1 << 32), .uint32), (.int(1), .uint32),
            (.uint(1), .int32), (.pointer(0x4141_4141), .pointer), (.pointer(0x4141_4141), .uint64), (.void, .int32),
            (.double(1), .float), (.bytes([]), .string),
        ]
        for (value, type) in refused { #expect(!FunctionInvoker.isResult(value, of: type), "\(value) as \(type)") }
    }
}
