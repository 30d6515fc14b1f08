import Testing
@testable import Plugboard

/// The same functions of the same library called through Python's ctypes and through
/// our engine give the same results, bit for bit. The Python script walks the library's
/// records from `plugboard_entry` itself (only that symbol is exported), so it calls the
/// very function pointers the host calls, with signatures read from the declarations.
@Suite struct CtypesComparisonTests {
    static let cases: [(String, [PluginValue])] = [
        ("echo_int8", [.int(-128)]), ("echo_int8", [.int(127)]), ("echo_int16", [.int(-32768)]),
        ("echo_int32", [.int(Int64(Int32.min))]), ("echo_int64", [.int(.min)]), ("echo_int64", [.int(.max)]),
        ("echo_uint8", [.uint(255)]), ("echo_uint16", [.uint(65535)]), ("echo_uint32", [.uint(UInt64(UInt32.max))]),
        ("echo_uint64", [.uint(.max)]), ("minus_one", []), ("two_hundred", []), ("int16_min", []), ("truth", []),
        ("flip", [.bool(true)]), ("negate_int8", [.int(-127)]), ("low_int8", [.int(0x1234_5680)]),
        ("low_uint8", [.uint(0xFFFF_FFFF_FFFF_FFC8)]), ("low_int16", [.int(0x7FFF_8000)]), ("low_bit", [.uint(0xFFFF_FF01)]),
        ("echo_float", [.float(.nan)]), ("echo_float", [.float(-.infinity)]), ("echo_float", [.float(.leastNonzeroMagnitude)]),
        ("echo_double", [.double(.nan)]), ("echo_double", [.double(-0.0)]), ("echo_double", [.double(.infinity)]),
        ("echo_double", [.double(.greatestFiniteMagnitude)]),
        ("echo_string", [.string("")]), ("echo_string", [.string("héllo wörld ✓ 🎉")]), ("greeting", []),
        ("echo_bytes", [.bytes([])]), ("echo_bytes", [.bytes([0, 255, 1, 128])]), ("checksum", [.bytes([9, 8, 7]), .uint(5)]),
        ("echo_pointer", [.pointer(0)]), ("echo_pointer", [.pointer(0xdead_beef)]),
        ("weigh", [.int(3), .double(0.5), .string("abc")]), ("touch", []),
        ("mixed", [.int(-128), .uint(255), .int(-32768), .uint(65535), .int(Int64(Int32.min)), .uint(UInt64(UInt32.max)),
                   .int(.min), .uint(.max), .float(0.1), .double(1e300), .int(7), .double(-0.75)]),
    ]

    @Test func resultsMatchPythonCtypes() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let input = Self.cases.map { name, arguments in ([name] + arguments.map(Self.encode)).joined(separator: " ") }
        let python = try run("/usr/bin/env", ["python3", TestPaths.fixtures + "/functions_ctypes.py", fixture.library,
                                              "com.example.functions"], input: input.joined(separator: "\n") + "\n")
        try #require(python.status == 0, "python3 failed (is it installed?):\n\(python.errorOutput)")
        let theirs = python.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        let ours = try Self.cases.map { name, arguments in Self.encode(try fixture.call(name, arguments)) }
        #expect(theirs.count == Self.cases.count, "\(python.output)")
        for (index, (mine, python)) in zip(ours, theirs).enumerated() {
            #expect(mine == python, "\(input[index]): ours \(mine), ctypes \(python)")
        }
    }

    /// A value as the script reads and writes it: decimal integers, true/false, the
    /// little-endian bytes of floats and doubles in hex, strings and buffers in hex.
    static func encode(_ value: PluginValue) -> String {
        switch value {
        case .void: "void"
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .uint(let number): String(number)
        case .float(let number): hex(withUnsafeBytes(of: number.bitPattern.littleEndian, Array.init))
        case .double(let number): hex(withUnsafeBytes(of: number.bitPattern.littleEndian, Array.init))
        case .string(let text): hex(Array(text.utf8))
        case .bytes(let bytes): hex(bytes)
        case .pointer(let address): String(address)
        }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }.joined()
    }
}
