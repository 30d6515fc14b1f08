import Foundation
import Plugboard
import Testing

/// `plugboard call` end to end: the real binary, plugins/unit-converter and
/// `Fixtures/functions_plugin.c` built into a fresh plugin directory.
@Suite struct CallCommandTests {
    /// The two libraries in a `plugins` folder of a fresh workspace.
    struct Plugins {
        let workspace: Workspace

        init() throws {
            workspace = try Workspace("call")
            let libraries = [
                try PluginCompiler.compile(TestPaths.fixtures + "/functions_plugin.c", to: workspace.plugins + "/libfunctions.so"),
                try PluginCompiler.compile(TestPaths.packageRoot.appendingPathComponent("plugins/unit-converter/unit_converter.c").path,
                                           to: workspace.plugins + "/unit-converter.so"),
            ]
            // Dated a minute back, so the scan cache may answer for them (a file changed within 2 s is scanned again).
            for library in libraries { try FileChange.setModificationTime(library, FileChange.now(plus: -60)) }
        }

        /// `plugboard call --plugin-dir … ARGUMENTS…`, in process unless `isolation` says otherwise.
        func call(_ arguments: [String], isolation: String = "none") throws -> ProcessResult {
            try CLI.run(["call", "--plugin-dir", workspace.plugins, "--isolation", isolation] + arguments)
        }

        /// The one line a call that must succeed prints.
        func value(_ arguments: [String]) throws -> String {
            let result = try call(arguments)
            #expect(result.status == 0, "\(arguments): \(result.errorOutput)")
            return result.output.hasSuffix("\n") ? String(result.output.dropLast()) : result.output
        }

        /// The error line of a call that must fail with `status`.
        func error(_ arguments: [String], status: Int32) throws -> String {
            let result = try call(arguments)
            #expect(result.status == status, "\(arguments): \(result.output) \(result.errorOutput)")
            #expect(result.output.isEmpty, "\(arguments) printed a result: \(result.output)")
            return result.errorOutput
        }
    }

    @Test func everyTypeIsReadByItsSignatureAndPrinted() throws {
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        let f = "com.example.functions."
        let cases: [([String], String)] = [
            (["com.example.units.convert", "ft", "m", "3"], "0.9144000000000001"),
            (["com.example.units.describe", "ft", "m", "3"], "3 ft = 0.9144 m"),
            ([f + "flip", "true"], "false"),
            ([f + "flip", "false"], "true"),
            ([f + "echo_int8", "-128"], "-128"),
            ([f + "echo_int8", "0x7f"], "127"),
            ([f + "echo_int16", "-0x8000"], "-32768"),
            ([f + "echo_int32", "+2147483647"], "2147483647"),
            ([f + "echo_int64", "-9223372036854775808"], "-9223372036854775808"),
            ([f + "echo_uint8", "255"], "255"),
            ([f + "echo_uint16", "0XFFFF"], "65535"),
            ([f + "echo_uint32", "4294967295"], "4294967295"),
            ([f + "echo_uint64", "0xffffffffffffffff"], "18446744073709551615"),
            ([f + "echo_uint8", "-0"], "0"),
            ([f + "echo_float", "2.5"], "2.5"),
            ([f + "echo_float", "-0"], "-0.0"),
            ([f + "echo_double", "-1e-3"], "-0.001"),
            ([f + "echo_double", "0x1p4"], "16.0"),
            ([f + "echo_double", "NaN"], "nan"),
            ([f + "echo_double", "inf"], "inf"),
            ([f + "echo_double", "-Infinity"], "-inf"),
            ([f + "echo_string", "héllo wörld"], "héllo wörld"),
            ([f + "echo_string", ""], ""),
            ([f + "echo_string", "--", "--json"], "--json"),
            ([f + "echo_bytes", "00FF10"], "00ff10"),
            ([f + "echo_bytes", ""], ""),
            ([f + "checksum", "010203", "7"], "209566"),
            ([f + "mixed", "-1", "2", "-3", "4", "-5", "6", "-7", "8", "0.5", "0.25", "9", "10"], "23.75"),
            ([f + "weigh", "3", "2.5", "abc"], "10.5"),
            ([f + "greeting"], "héllo, wörld"),
            ([f + "minus_one"], "-1"),
            ([f + "two_hundred"], "200"),
        ]
        for (arguments, expected) in cases {
            #expect(try plugins.value(arguments) == expected, "\(arguments)")
        }
        let void = try plugins.call([f + "touch"])
        #expect(void.status == 0 && void.output.isEmpty, "a void function prints nothing: \(void.output)")
    }

    @Test func bytesComeFromAFileAfterAnAt() throws {
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        try plugins.workspace.root.write("data.bin", "abc\n")
        #expect(try plugins.value(["com.example.functions.echo_bytes", "@" + plugins.workspace.root.file("data.bin")]) == "6162630a")
        let missing = plugins.workspace.root.file("missing.bin")
        #expect(try plugins.error(["com.example.functions.echo_bytes", "@" + missing], status: 64)
            == "plugboard call: argument 1 of com.example.functions.echo_bytes (bytes): cannot read the file \"\(missing)\": No such file or directory\n")
        // A FIFO (its open would wait for a writer) and a device (it may never end) are refused at once;
        // a file past what a call carries is refused before it is read whole.
        let fifo = plugins.workspace.root.file("pipe")
        try #require(mkfifo(fifo, 0o600) == 0)
        for special in [fifo, "/dev/zero"] {
            #expect(try plugins.error(["com.example.functions.echo_bytes", "@" + special], status: 64)
                == "plugboard call: argument 1 of com.example.functions.echo_bytes (bytes): \"\(special)\" is not a regular file; @FILE reads a file's bytes\n")
        }
        let large = plugins.workspace.root.file("large.bin")
        try #require(FileManager.default.createFile(atPath: large, contents: nil) && truncate(large, off_t(PluginValue.maximumBytes + 1)) == 0)
        #expect(try plugins.error(["com.example.functions.echo_bytes", "@" + large], status: 64)
            == "plugboard call: argument 1 of com.example.functions.echo_bytes (bytes): the file \"\(large)\" has more than "
            + "\(PluginValue.maximumBytes) bytes, the most a call carries\n")
    }

    @Test func aWrongArgumentNamesThePositionTheTypeAndTheValue() throws {
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        let f = "com.example.functions."
        let cases: [([String], String)] = [
            ([f + "echo_int8", "300"], "argument 1 of com.example.functions.echo_int8 (int8): \"300\" is out of range -128…127"),
            ([f + "echo_int8", "-129"], "argument 1 of com.example.functions.echo_int8 (int8): \"-129\" is out of range -128…127"),
            ([f + "echo_uint8", "-1"], "(uint8): \"-1\" is out of range 0…255"),
            ([f + "echo_uint64", "18446744073709551616"], "(uint64): \"18446744073709551616\" is out of range 0…18446744073709551615"),
            ([f + "echo_int32", "12a"], "(int32): \"12a\" is not an integer (decimal such as -12, or hexadecimal such as 0xff)"),
            ([f + "echo_int32", "1.0"], "(int32): \"1.0\" is not an integer"),
            ([f + "echo_int32", "0x"], "(int32): \"0x\" is not an integer"),
            ([f + "echo_double", "abc"], "argument 1 of com.example.functions.echo_double (double): \"abc\" is not a number (such as 2.5, -1e-3, 0x1p4, nan, inf or -inf)"),
            ([f + "echo_double", "1e400"], "(double): \"1e400\" is out of range for double (at most ±1.7976931348623157e+308)"),
            ([f + "echo_float", "1e39"], "(float): \"1e39\" is out of range for float (at most ±3.4028235e+38)"),
            ([f + "flip", "yes"], "argument 1 of com.example.functions.flip (bool): \"yes\" is not a bool (write true or false)"),
            ([f + "flip", "1"], "(bool): \"1\" is not a bool (write true or false)"),
            ([f + "echo_bytes", "abc"], "(bytes): \"abc\" is not bytes (an even number of hexadecimal digits such as 00ff, or @FILE)"),
            ([f + "echo_bytes", "0g"], "(bytes): \"0g\" is not bytes"),
            ([f + "echo_bytes", "@"], "(bytes): \"@\" needs a file name (@FILE reads the file's bytes)"),
            ([f + "echo_pointer", "0"], "argument 1 of com.example.functions.echo_pointer (pointer): a pointer cannot be given on the command line: an address means nothing in another process"),
            ([f + "weigh", "1", "2.5", "x", "extra"], "com.example.functions.weigh takes 3 arguments, 4 given (signature: double (int32, double, string)); the extra: 'extra'"),
            (["com.example.units.convert", "ft"], "com.example.units.convert takes 3 arguments, 1 given (signature: double (string, string, double))"),
            ([f + "checksum", "00"], "argument"),
            (["not-an-address"], "malformed function address \"not-an-address\": expected plugin-id.function, e.g. com.example.units.convert"),
            (["com.example.functions.Bad"], "malformed function address \"com.example.functions.Bad\": the function name has \"B\" at byte 1"),
        ]
        for (arguments, expected) in cases {
            let error = try plugins.error(arguments, status: 64)
            #expect(error.hasPrefix("plugboard call: ") && error.contains(expected) && error.split(separator: "\n").count == 1,
                    "\(arguments): \(error)")
        }
    }

    @Test func anArgumentThatIsNotUTF8IsRefused() throws {
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        let result = try CLI.run(afterShell: "set -- \"$@\" $'a\\xffb'",
                                 ["call", "--plugin-dir", plugins.workspace.plugins, "--isolation", "none", "com.example.functions.echo_string"])
        #expect(result.status == 64, "\(result.output) \(result.errorOutput)")
        #expect(result.errorOutput.hasPrefix("Error: argument 7, 'a\u{FFFD}b' (shown with U+FFFD), is not UTF-8"), "\(result.errorOutput)")
    }

    @Test func whatCannotBeCalledIsNamedWithWhatCan() throws {
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        let unknownPlugin = try plugins.error(["com.example.nothing.convert"], status: 1)
        #expect(unknownPlugin.hasPrefix("plugboard call: com.example.nothing.convert: no plugin com.example.nothing is loaded; loaded plugins with functions: "),
                "\(unknownPlugin)")
        #expect(unknownPlugin.contains("com.example.units (convert, describe, units)"), "\(unknownPlugin)")
        let unknownFunction = try plugins.error(["com.example.units.kelvin"], status: 1)
        #expect(unknownFunction == "plugboard call: com.example.units.kelvin: plugin com.example.units declares no function \"kelvin\"; it declares: "
            + "convert double (string, string, double), describe string (string, string, double), units string ()\n")
        let refused = try plugins.error(["com.example.badfunctions.unknown_type"], status: 1)
        #expect(refused.contains("com.example.badfunctions.unknown_type: the declaration was refused when the plugin loaded, so it is never called: "
            + "signature \"double (int)\": column 9: unknown type \"int\""), "\(refused)")
        #expect(try plugins.error(["com.example.functions.null_string"], status: 1)
            == "plugboard call: com.example.functions.null_string: invalid result: a NULL string\n")
        let empty = try Workspace("call-empty")
        defer { empty.remove() }
        let nothing = try CLI.run(["call", "--plugin-dir", empty.plugins, "--isolation", "none", "com.example.units.convert"])
        #expect(nothing.status == 1)
        #expect(nothing.errorOutput == "plugboard call: com.example.units.convert: no plugin com.example.units is loaded; no plugin was loaded from \(empty.plugins)\n")
    }

    /// With the default isolation the call runs in the plugin's worker and answers as in process;
    /// a crash there is the worker's, reported in one line, and `call` exits 5.
    @Test func inAWorkerTheCallIsForwardedAndACrashIsTheWorkers() throws {
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        let inProcess = try plugins.call(["com.example.units.convert", "ft", "m", "3"])
        let byDefault = try CLI.run(["call", "--plugin-dir", plugins.workspace.plugins, "com.example.units.convert", "ft", "m", "3"])
        #expect(byDefault.status == 0 && inProcess.status == 0, "\(byDefault.errorOutput)")
        #expect(byDefault.output == inProcess.output && byDefault.output == "0.9144000000000001\n", "\(byDefault.output)")
        let crashed = try plugins.call(["com.example.functions.crash"], isolation: "process")
        #expect(crashed.status == 5, "\(crashed.output) \(crashed.errorOutput)")
        #expect(crashed.output.isEmpty)
        #expect(crashed.errorOutput.contains("com.example.functions crashed with SIGSEGV in function crash ("), "\(crashed.errorOutput)")
    }

    /// With `--json` every error of the call is one document on standard output, the sentence and the
    /// exit code, in process and in a worker; without it, the same sentence is a line on standard error.
    @Test func withJSONAnErrorIsOneDocumentOnStandardOutput() throws {
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        let cases: [([String], String, Int32, String)] = [
            (["not-an-address"], "none", 64, "malformed function address \"not-an-address\""),
            (["com.example.functions.echo_int8", "300"], "none", 64, "argument 1 of com.example.functions.echo_int8 (int8): \"300\" is out of range"),
            (["com.example.nothing.convert"], "process", 1, "com.example.nothing.convert: no plugin com.example.nothing is loaded"),
            (["com.example.functions.null_string"], "none", 1, "com.example.functions.null_string: invalid result: a NULL string"),
            (["com.example.functions.crash"], "process", 5, "com.example.functions crashed with SIGSEGV in function crash ("),
        ]
        for (arguments, isolation, status, words) in cases {
            let json = try plugins.call(arguments + ["--json"], isolation: isolation)
            #expect(json.status == status, "\(arguments): \(json.output) \(json.errorOutput)")
            let document = try #require(jsonObject(json.output), "\(arguments): not one JSON document: \(json.output)")
            #expect(Set(document.keys) == ["error", "exitCode"], "\(arguments): \(document)")
            #expect(document.string("error")?.contains(words) == true, "\(arguments): \(document)")
            #expect(document.int("exitCode") == Int(status), "\(arguments): \(document)")
            #expect(!json.errorOutput.contains("plugboard call: "), "\(arguments): \(json.errorOutput)")
            let human = try plugins.call(arguments, isolation: isolation)
            #expect(human.status == status && human.output.isEmpty, "\(arguments): \(human.output)")
            #expect(human.errorOutput.contains(words), "\(arguments): \(human.errorOutput)")
        }
        let noWorker = try CLI.run(["call", "--plugin-dir", plugins.workspace.plugins, "com.example.units.convert", "--json"],
                                   environment: ["PLUGBOARD_WORKER": plugins.workspace.root.file("no-worker")])
        #expect(noWorker.status == 64, "\(noWorker.output) \(noWorker.errorOutput)")
        #expect(jsonObject(noWorker.output)?.string("error")?.contains("plugin workers need the plugboard-worker executable") == true,
                "\(noWorker.output)")
    }

    /// `--restart` is `run`'s: `call` makes one call, so it does not offer it (the words are the function's arguments).
    /// `--repeat N` makes the call N times, prepared once, in process and in a worker, and prints the
    /// last result; with --json it says how many calls the mean nanoseconds is over.
    @Test(arguments: ["none", "process"])
    func repeatMakesTheCallThatManyTimes(isolation: String) throws {
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        let f = "com.example.functions."
        let counted = try plugins.call(["--repeat", "1000", f + "count_call"], isolation: isolation)
        #expect(counted.status == 0 && counted.output == "1000\n", "\(counted.output) \(counted.errorOutput)")
        let weighed = try plugins.call(["--repeat", "3", f + "weigh", "3", "2.5", "abc", "--json"], isolation: isolation)
        let document = try #require(jsonObject(weighed.output), "not a JSON document: \(weighed.output)")
        #expect((document["calls"] as? NSNumber)?.intValue == 3 && document.object("result")?.string("type") == "double",
                "\(weighed.output)")
        let crash = try plugins.call(["--repeat", "5", f + "crash"], isolation: "process")
        #expect(crash.status == 5 && crash.errorOutput.contains("crashed with SIGSEGV in function crash"), "\(crash.errorOutput)")
        let none = try plugins.call(["--repeat", "0", f + "touch"], isolation: isolation)
        #expect(none.status == 64 && none.errorOutput.contains("--repeat takes a number of calls, 1 or more (not 0)"),
                "\(none.errorOutput)")
        let negative = try plugins.call(["--repeat", "-1", f + "touch"], isolation: isolation)
        #expect(negative.status == 64 && negative.errorOutput.contains("--repeat takes a number of calls, 1 or more (not -1)"),
                "\(negative.errorOutput)")
    }

    /// A notification the function posts reaches no plugin (no event runs, so none observes): the
    /// call says so on standard error, after the result.
    @Test(arguments: ["none", "process"])
    func aNotificationPostedByTheCallIsNamed(isolation: String) throws {
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        let result = try plugins.call(["com.example.functions.announce"], isolation: isolation)
        #expect(result.status == 0 && result.output == "0\n", "\(result.output)\(result.errorOutput)")
        #expect(result.errorOutput.contains("plugboard call: warning: the call posted com.example.functions.announced from "
                                            + "com.example.functions; call sends no lifecycle event"), "\(result.errorOutput)")
        let repeated = try plugins.call(["com.example.functions.announce", "--repeat", "3"], isolation: isolation)
        #expect(repeated.errorOutput.contains("posted com.example.functions.announced from com.example.functions (3 times);"),
                "\(repeated.errorOutput)")
    }

    @Test func callOffersNoRestart() throws {
        let help = try CLI.run(["call", "--help"])
        #expect(help.status == 0 && !help.output.contains("--restart <n>"), "\(help.output)")
        #expect(try CLI.run(["run", "--help"]).output.contains("--restart <n>"))
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        #expect(try plugins.error(["com.example.units.convert", "ft", "m", "3", "--restart", "1"], status: 64)
            == "plugboard call: com.example.units.convert takes 3 arguments, 5 given (signature: double (string, string, double)); the extra: '--restart', '1'\n")
    }

    @Test func jsonHasTheFunctionTheSignatureTheTypedResultAndTheDuration() throws {
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        func document(_ arguments: [String]) throws -> [String: Any] {
            let result = try plugins.call(arguments + ["--json"])
            #expect(result.status == 0, "\(result.errorOutput)")
            return try #require(jsonObject(result.output), "not a JSON document: \(result.output)")
        }
        let convert = try document(["com.example.units.convert", "ft", "m", "3"])
        #expect(Set(convert.keys) == ["function", "signature", "result", "nanoseconds"])
        #expect(convert.string("function") == "com.example.units.convert")
        #expect(convert.string("signature") == "double (string, string, double)")
        #expect(convert.object("result")?.string("type") == "double")
        #expect(abs(((convert.object("result")?["value"] as? NSNumber)?.doubleValue ?? 0) - 0.9144) < 1e-12)
        #expect((convert["nanoseconds"] as? NSNumber).map { $0.int64Value > 0 } == true)

        func result(_ arguments: [String]) throws -> [String: Any] {
            try #require(try document(arguments).object("result"))
        }
        let f = "com.example.functions."
        #expect(try result([f + "echo_double", "nan"]).string("value") == "nan")
        #expect(try result([f + "echo_double", "-inf"]).string("value") == "-inf")
        #expect(try result([f + "echo_float", "inf"]).string("value") == "inf")
        #expect((try result([f + "echo_uint64", "18446744073709551615"])["value"] as? NSNumber)?.uint64Value == UInt64.max)
        #expect((try result([f + "echo_int64", "-9223372036854775808"])["value"] as? NSNumber)?.int64Value == Int64.min)
        #expect(try result([f + "flip", "false"])["value"] as? Bool == true)
        #expect(try result([f + "echo_bytes", "00ff"]).string("value") == "00ff")
        #expect(try result([f + "greeting"]).string("value") == "héllo, wörld")
        let void = try result([f + "touch"])
        #expect(void.string("type") == "void" && void["value"] is NSNull, "\(void)")
    }

    @Test func aResultIsPrintedThroughTheEscapingChokePoint() throws {
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        #expect(try plugins.value(["com.example.functions.echo_string", "line\nforged\u{1b}[2J"]) == "line\\nforged\\x1b[2J")
        let json = try plugins.call(["com.example.functions.echo_string", "line\nforged", "--json"])
        #expect(jsonObject(json.output)?.object("result")?.string("value") == "line\nforged")
    }

    @Test func aCrashInTheFunctionInProcessIsNamed() throws {
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        let result = try plugins.call(["com.example.functions.crash"])
        #expect(result.status == 128 + SIGSEGV, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("com.example.functions crashed with SIGSEGV in function crash"), "\(result.errorOutput)")
    }

    @Test func listShowsEachPluginsFunctionsAlsoFromTheScanCache() throws {
        let plugins = try Plugins()
        defer { plugins.workspace.remove() }
        let cache = plugins.workspace.root.file("cache")
        for round in ["scanned", "cached"] {
            let human = try CLI.run(["list", "--plugin-dir", plugins.workspace.plugins, "--cache-dir", cache])
            #expect(human.status == 0, "refused declarations do not fail a library: \(human.errorOutput)")
            let lines = human.output.split(separator: "\n").map(String.init)
            #expect(human.output.contains("unit-converter.so  (ABI \(ABIVersion.host))" + (round == "cached" ? "  (cached)\n" : "\n")),
                    "\(round): \(human.output)")
            let units = try #require(lines.firstIndex { $0.hasPrefix("           com.example.units ") }, "\(round): \(human.output)")
            #expect(Array(lines[(units + 1)...].prefix(3)) == [
                "             function convert: double (string, string, double)  Converts value from one unit to another"
                    + " (convert(\"ft\", \"m\", 3) = 0.9144); NaN when it cannot.",
                "             function describe: string (string, string, double)  The conversion as a sentence"
                    + " (\"3 ft = 0.9144 m\"), or why it cannot be made.",
                "             function units: string ()  The units convert knows, separated by spaces.",
            ], "\(round): \(human.output)")
            let json = try CLI.run(["list", "--plugin-dir", plugins.workspace.plugins, "--cache-dir", cache, "--json"])
            let library = try #require(try CLI.libraries(json).first { ($0.string("path") ?? "").hasSuffix("unit-converter.so") })
            #expect(library["cached"] as? Bool == true, "the human list before it filled the cache")
            let functions = library.objects("plugins")?.first?.objects("functions")
            #expect(functions?.map { $0.string("name") } == ["convert", "describe", "units"], "\(round)")
            #expect(functions?.first?.string("signature") == "double (string, string, double)")
        }
    }
}
