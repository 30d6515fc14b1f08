import Testing
@testable import Plugboard

/// Every type in and out of a real C plugin through the libffi engine, in process.
@Suite struct FunctionCallTests {
    /// Each integer function returns its argument: the extremes of every width, as
    /// `.int` or `.uint` whichever the caller has.
    @Test(arguments: [
        ("echo_int8", [Int64(Int8.min), -1, 0, 1, Int64(Int8.max)]),
        ("echo_int16", [Int64(Int16.min), -1, 0, Int64(Int16.max)]),
        ("echo_int32", [Int64(Int32.min), -1, 0, Int64(Int32.max)]),
        ("echo_int64", [Int64.min, -1, 0, Int64.max]),
    ])
    func signedIntegersRoundTrip(function: String, values: [Int64]) throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        for value in values {
            #expect(try fixture.call(function, [.int(value)]) == .int(value), "\(function)(\(value))")
            if value >= 0 {
                #expect(try fixture.call(function, [.uint(UInt64(value))]) == .int(value), "\(function)(\(value) as uint)")
            }
        }
    }

    @Test(arguments: [
        ("echo_uint8", [UInt64(0), 1, 200, UInt64(UInt8.max)]),
        ("echo_uint16", [UInt64(0), 40_000, UInt64(UInt16.max)]),
        ("echo_uint32", [UInt64(0), 3_000_000_000, UInt64(UInt32.max)]),
        ("echo_uint64", [UInt64(0), UInt64(Int64.max) + 1, UInt64.max]),
    ])
    func unsignedIntegersRoundTrip(function: String, values: [UInt64]) throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        for value in values {
            #expect(try fixture.call(function, [.uint(value)]) == .uint(value), "\(function)(\(value))")
        }
    }

    /// The ffi_arg trap: a result narrower than a register comes back at its width and sign.
    @Test func narrowResultsKeepTheirWidthAndSign() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        #expect(try fixture.call("minus_one", []) == .int(-1))
        #expect(try fixture.call("two_hundred", []) == .uint(200))
        #expect(try fixture.call("int16_min", []) == .int(Int64(Int16.min)))
        #expect(try fixture.call("truth", []) == .bool(true))
        #expect(try fixture.call("flip", [.bool(true)]) == .bool(false))
        #expect(try fixture.call("flip", [.bool(false)]) == .bool(true))
        #expect(try fixture.call("negate_int8", [.int(5)]) == .int(-5))
        #expect(try fixture.call("negate_int8", [.int(-127)]) == .int(127))
        // The register holds the whole wide argument; only the declared width counts.
        #expect(try fixture.call("low_int8", [.int(0x1234_5680)]) == .int(-128))
        #expect(try fixture.call("low_int8", [.int(-1)]) == .int(-1))
        #expect(try fixture.call("low_uint8", [.uint(0xFFFF_FFFF_FFFF_FFC8)]) == .uint(200))
        #expect(try fixture.call("low_int16", [.int(0x7FFF_8000)]) == .int(Int64(Int16.min)))
        #expect(try fixture.call("low_bit", [.uint(0xFFFF_FF00)]) == .bool(false))
        #expect(try fixture.call("low_bit", [.uint(0xFFFF_FF01)]) == .bool(true))
    }

    @Test func floatingPointRoundTrips() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        for value in [0.0, -0.0, 1.5, -2.25, Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude, .infinity, -.infinity] {
            let result = try fixture.call("echo_double", [.double(value)])
            #expect(result == .double(value) && (value.sign == .minus) == (result.doubleValue?.sign == .minus), "\(value)")
        }
        for value in [Float(0), 1.5, -3.75, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity] {
            #expect(try fixture.call("echo_float", [.float(value)]) == .float(value), "\(value)")
        }
        guard case .double(let nan) = try fixture.call("echo_double", [.double(.nan)]) else { Issue.record("not a double"); return }
        #expect(nan.isNaN)
        guard case .float(let floatNaN) = try fixture.call("echo_float", [.float(.nan)]) else { Issue.record("not a float"); return }
        #expect(floatNaN.isNaN)
        // A double for a float argument is rounded; a float for a double is exact.
        #expect(try fixture.call("echo_float", [.double(0.1)]) == .float(0.1))
        #expect(try fixture.call("echo_double", [.float(0.1)]) == .double(Double(Float(0.1))))
    }

    @Test func stringsRoundTripAndAreReleased() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        for text in ["", "a", "héllo wörld ✓ 🎉", String(repeating: "x", count: 100_000)] {
            #expect(try fixture.call("echo_string", [.string(text)]) == .string(text), "\(text.prefix(20))")
        }
        #expect(try fixture.call("released_count", []) == .int(4), "each returned copy was released once")
        #expect(try fixture.call("greeting", []) == .string("héllo, wörld"))
        #expect(try fixture.call("released_count", []) == .int(4), "a function without release keeps its result")
        #expect(try fixture.call("weigh", [.int(3), .double(0.5), .string("abc")]) == .double(4.5))
        #expect(try fixture.call("weigh", [.int(-2), .double(1), .string("ü")]) == .double(0), "length in bytes")
    }

    @Test func bytesRoundTripAndAreReleased() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let large = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for bytes in [[], [0], [0, 255, 0, 1], large] as [[UInt8]] {
            #expect(try fixture.call("echo_bytes", [.bytes(bytes)]) == .bytes(bytes), "\(bytes.count) bytes")
        }
        #expect(try fixture.call("released_count", []) == .int(3), "the empty result has NULL data: not released")
        #expect(try fixture.call("checksum", [.bytes([]), .uint(7)]) == .uint(7))
        #expect(try fixture.call("checksum", [.bytes([1, 2]), .uint(0)]) == .uint(31 * 1 + 2 + 2))
    }

    @Test func pointersPassThrough() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        for value in [UInt(0), 1, 0xdead_beef, UInt.max] {
            #expect(try fixture.call("echo_pointer", [.pointer(value)]) == .pointer(value))
        }
    }

    /// Twelve arguments of every width: more than the registers, so some go on the stack.
    @Test func manyMixedArguments() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let arguments: [PluginValue] = [.int(-128), .uint(255), .int(-32768), .uint(65535), .int(Int64(Int32.min)),
                                        .uint(UInt64(UInt32.max)), .int(-1_000_000_000_000), .uint(1_000_000_000_000),
                                        .float(0.5), .double(0.25), .int(7), .double(-0.75)]
        let integers: Double = -128 + 255 - 32768 + 65535
        let wide = Double(Int32.min) + Double(UInt32.max)
        let expected: Double = integers + wide - 1e12 + 1e12 + 0.5 + 0.25 + 7 - 0.75
        #expect(try fixture.call("mixed", arguments) == .double(expected))
    }

    @Test func voidFunctionsRun() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        #expect(try fixture.call("touch", []) == .void)
        #expect(try fixture.call("touch", []) == .void)
        #expect(try fixture.call("touch_count", []) == .int(2))
    }

    /// A result the type does not allow is the call's error, not a crash or a made-up value.
    @Test func invalidResultsAreErrors() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let address = try FunctionAddress(parsing: "com.example.functions.null_string")
        #expect(fixture.failure("null_string", []) == .invalidResult(address, reason: "a NULL string"))
        #expect(fixture.failure("bad_utf8", [])?.description.contains("not valid UTF-8") == true)
        #expect(fixture.failure("null_bytes_with_size", [])?.description
            == "com.example.functions.null_bytes_with_size: invalid result: bytes with a NULL data pointer and a size of 3")
        #expect(fixture.failure("wrapped_bytes", [])?.description == "com.example.functions.wrapped_bytes: invalid result: "
                + "a size of 18446744073709551611 bytes, over the limit of \(ByteCount.valueLimit)")
        #expect(fixture.failure("exabyte_bytes", [])?.description == "com.example.functions.exabyte_bytes: invalid result: "
                + "a size of 4611686018427387904 bytes, over the limit of \(ByteCount.valueLimit)")
    }
}

extension PluginValue {
    /// The double inside, if it is one.
    var doubleValue: Double? {
        if case .double(let value) = self { return value }
        return nil
    }
}
