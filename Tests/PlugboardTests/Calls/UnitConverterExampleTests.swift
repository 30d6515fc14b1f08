import Testing
@testable import Plugboard

/// plugins/unit-converter, built as plugins/demo.sh builds it, called through the engine.
@Suite struct UnitConverterExampleTests {
    @Test func convertsDescribesAndLists() throws {
        let directory = try TemporaryDirectory("plugboard-unit-converter")
        defer { directory.remove() }
        let library = try PluginCompiler.compile(TestPaths.packageRoot.appendingPathComponent("plugins/unit-converter/unit_converter.c").path,
                                                 to: directory.file("unit-converter.so"), flags: ["-pedantic"])
        let host = PluginHost()
        defer { host.shutdown() }
        let report = host.loadLibrary(at: library)
        try #require(report.status == .loaded, "\(report)")
        #expect(report.plugins.first?.functions.map(\.name) == ["convert", "describe", "units"])
        #expect(report.plugins.first?.refusedFunctions == [])

        func convert(_ from: String, _ to: String, _ value: Double) throws -> Double {
            guard case .double(let result) = try host.call("com.example.units.convert", [.string(from), .string(to), .double(value)]) else {
                throw TestFailure("convert returned no double")
            }
            return result
        }
        #expect(abs(try convert("ft", "m", 3) - 0.9144) < 1e-12)
        #expect(abs(try convert("C", "F", 100) - 212) < 1e-9)
        #expect(abs(try convert("lb", "kg", 1) - 0.45359237) < 1e-12)
        #expect(try convert("m", "kg", 1).isNaN)
        #expect(try convert("parsec", "m", 1).isNaN)
        #expect(try host.call("com.example.units.describe", [.string("ft"), .string("m"), .double(3)]) == .string("3 ft = 0.9144 m"))
        #expect(try host.call("com.example.units.describe", [.string("m"), .string("kg"), .double(1)])
            == .string("cannot convert m to kg: m is a length, kg a mass"))
        guard case .string(let units) = try host.call("com.example.units.units", []) else {
            Issue.record("units returned no string")
            return
        }
        #expect(units.split(separator: " ").contains("ft"))
        #expect(throws: PluginCallError.wrongArgumentType(try FunctionAddress(parsing: "com.example.units.convert"), position: 3,
                                                          expected: .double, given: "signed integer")) {
            try host.call("com.example.units.convert", [.string("m"), .string("km"), .int(1)])
        }
    }
}
