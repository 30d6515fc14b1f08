import Testing
@testable import Plugboard

/// Declarations as the load report shows them: accepted functions with their canonical
/// signature and doc, and each bad declaration refused alone with a warning that names
/// the plugin, the function and the cause.
@Suite struct FunctionDeclarationTests {
    @Test func acceptedFunctionsAreReported() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let plugin = try #require(fixture.report.plugins.first { $0.descriptor.id.rawValue == "com.example.functions" })
        #expect(plugin.refusedFunctions.isEmpty, "\(plugin.refusedFunctions)")
        #expect(plugin.functions.count == 41)
        #expect(plugin.functions.first { $0.name == "weigh" }
            == FunctionDeclaration(name: "weigh", signature: "double (int32, double, string)", doc: "count * each + the label's length in bytes."))
        #expect(plugin.functions.first { $0.name == "truth" }?.signature == "bool ()", "the canonical form of \" bool\\t( ) \"")
        #expect(fixture.host.plugins.first { $0.descriptor.id.rawValue == "com.example.functions" }?.functions == plugin.functions)
        #expect(fixture.report.abi?.structSizes["pb_function_t"] == 48)
    }

    @Test func eachBadDeclarationIsRefusedAlone() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let plugin = try #require(fixture.report.plugins.first { $0.descriptor.id.rawValue == "com.example.badfunctions" })
        #expect(plugin.functions.map(\.name) == ["ok"])
        let reasons = Dictionary(plugin.refusedFunctions.map { ($0.name, $0.reason) }, uniquingKeysWith: { first, _ in first })
        #expect(reasons["unknown_type"]?.hasPrefix("signature \"double (int)\": column 9: unknown type \"int\"") == true)
        #expect(reasons["void_argument"]?.hasPrefix("signature \"int32 (void)\": column 8: void is only a return type") == true)
        #expect(reasons["trailing"] == "signature \"int32 () extra\": column 10: unexpected \"extra\" after the closing \")\"")
        #expect(reasons["no_parenthesis"]?.contains("expected \"(\" after the return type") == true)
        #expect(reasons["dangling_comma"]?.contains("column 14: expected a type, found \")\"") == true)
        #expect(reasons["Bad-Name"] == "the function name has \"B\" at byte 1: a name is [a-z_] then [a-z0-9_]")
        #expect(reasons["null_function"] == "the function pointer is NULL")
        #expect(reasons["null_signature"] == "the signature is NULL")
        #expect(reasons["twice"] == "the name \"twice\" is declared 2 times in the plugin")
        #expect(plugin.refusedFunctions.filter { $0.name == "twice" }.count == 2)
        let unnamed = plugin.refusedFunctions.filter { $0.name.isEmpty }.map(\.reason)
        #expect(unnamed == ["entry 10 of functions: the name is NULL",
                            "entry 11 of functions: pb_function_t.struct_size is 8; it must be at least 48"])
        #expect(plugin.functionWarnings.contains(
            "plugin com.example.badfunctions: function \"null_function\" refused: the function pointer is NULL"))
        #expect(plugin.functionWarnings.count == plugin.refusedFunctions.count)
    }

    /// A count past the limit, or a NULL array with a count: nothing is read, the plugin loads without functions.
    @Test func aBadFunctionArrayIsRefusedWhole() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let tooMany = try #require(fixture.report.plugins.first { $0.descriptor.id.rawValue == "com.example.toomany" })
        #expect(tooMany.functions.isEmpty)
        #expect(tooMany.refusedFunctions == [FunctionRefusal(
            name: "", reason: "function_count is 100000; the limit is 1024, so no function of the plugin is used")])
        let null = try #require(fixture.report.plugins.first { $0.descriptor.id.rawValue == "com.example.nullfunctions" })
        #expect(null.refusedFunctions == [FunctionRefusal(name: "", reason: "functions is NULL but function_count is 3")])
        #expect(null.functionWarnings == ["plugin com.example.nullfunctions: function refused: functions is NULL but function_count is 3"])
    }

    /// A plugin built for ABI 1.1 (a smaller struct_size) declares nothing, whatever follows it in memory.
    @Test func anOlderPluginHasNoFunctions() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let plugin = try #require(fixture.report.plugins.first { $0.descriptor.id.rawValue == "com.example.oldfunctions" })
        #expect(plugin.functions.isEmpty && plugin.refusedFunctions.isEmpty)
    }

    /// `list` and `inspect` show the declarations and the refusals, from the scan cache too.
    @Test func listAndInspectShowFunctions() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        let cache = fixture.directory.file("cache")
        // An old modification time: a library changed in the last 2 s is never answered from the cache.
        try #require(try run("/usr/bin/env", ["touch", "-d", "2020-01-01", fixture.library]).status == 0)
        for cached in [false, true] {
            let json = try CLI.run(["inspect", fixture.library, "--cache-dir", cache, "--json"])
            #expect(json.output.contains("\"cached\" : \(cached)"), "\(json.output)")
            #expect(json.output.contains("\"signature\" : \"double (int32, double, string)\""), "cached \(cached): \(json.output)")
            #expect(json.output.contains("\"reason\" : \"the function pointer is NULL\""), "cached \(cached)")
            let inspect = try CLI.run(["inspect", fixture.library, "--cache-dir", cache])
            #expect(inspect.output.contains("Function      weigh: double (int32, double, string)  count * each + the label's length in bytes."),
                    "cached \(cached): \(inspect.output)")
            #expect(inspect.output.contains(
                "Warning       plugin com.example.badfunctions: function \"null_function\" refused: the function pointer is NULL"),
                    "cached \(cached): \(inspect.output)")
            let list = try CLI.run(["list", "--plugin-dir", fixture.directory.path, "--cache-dir", cache])
            #expect(list.output.contains("warning: plugin com.example.badfunctions: function \"twice\" refused"),
                    "cached \(cached): \(list.output)")
        }
    }
}
