import Foundation
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

    /// The error a worker sends for a call (``FunctionInvoker/workerError(_:calling:)``) is taken when
    /// it is about the function called; one that says a worker ended, or names another function, or
    /// does not decode, becomes an invalid result of the function called, which repeats none of it.
    @Test func aWorkersErrorIsTakenOnlyAboutTheFunctionCalled() throws {
        let called = FunctionAddress(plugin: PluginID(unchecked: "com.example.hostile"), function: "f")
        let other = FunctionAddress(plugin: PluginID(unchecked: "com.example.victim"), function: "g")
        func sent(_ error: PluginCallError) throws -> [UInt8] { Array(try JSONEncoder().encode(error)) }

        let own = PluginCallError.invalidResult(called, reason: "the function returned a NULL string")
        #expect(FunctionInvoker.workerError(try sent(own), calling: called) == own)
        let ended = PluginCallError.workerEnded(called, sentence: "com.example.hostile crashed with SIGSEGV")
        #expect(FunctionInvoker.workerError(try sent(ended), calling: called)
                == .invalidResult(called, reason: "its worker sent an error that says a worker ended, which only the host can tell"))
        #expect(FunctionInvoker.workerError(try sent(.workerEnded(other, sentence: "forged")), calling: called)
                == .invalidResult(called, reason: "its worker sent an error that says a worker ended, which only the host can tell"))
        #expect(FunctionInvoker.workerError(try sent(.unknownFunction(other)), calling: called)
                == .invalidResult(called, reason: "its worker sent an error about another function"))
        #expect(FunctionInvoker.workerError(try sent(.malformedAddress("x", reason: "no dot")), calling: called)
                == .invalidResult(called, reason: "its worker sent an error about another function"))
        #expect(FunctionInvoker.workerError(Array("{".utf8), calling: called)
                == .invalidResult(called, reason: "its worker sent an error that does not decode"))
    }
}
