import Testing

/// How each SDK's invoke is tested: a caller plugin of that SDK next to plugins/unit-converter,
/// with the real `plugboard run`. Every caller logs `3 ft = <metres> m` from convert, then the
/// error of a function the converter does not declare, `nosuch`; then, with convert prepared
/// once, `prepared: 2 ft = <metres> m, 10 ft = <metres> m`, the refusal of an argument of the
/// wrong type (``wrongType``), and the failure to prepare `nosuch`.
enum ConverterCallerRun {
    /// The sentence logged for `com.example.units.nosuch`, after `nosuch: `.
    static let unknownFunction =
        "status -4: com.example.units.nosuch: plugin com.example.units declares no function \"nosuch\""
    /// The sentence logged for a string set as convert's third argument, after `prepared set: `.
    static let wrongType = "status -1: com.example.units.convert: argument 3 must be double, not a string"

    /// Builds plugins/unit-converter into `workspace.plugins` (the caller is already there), runs
    /// `plugboard run --isolation isolation`, expects exit 0 and returns what plugin `caller` logged.
    static func logs(of caller: String, isolation: String, in workspace: Workspace) throws -> [String] {
        let converter = TestPaths.packageRoot.appendingPathComponent("plugins/unit-converter/unit_converter.c").path
        _ = try PluginCompiler.compile(converter, to: workspace.plugins + "/unit-converter.so")
        let result = try CLI.run(["run", "--isolation", isolation, "--plugin-dir", workspace.plugins])
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        return CLI.pluginLogs(result.output).compactMap { line in
            line.hasPrefix(caller + ": ") ? String(line.dropFirst(caller.count + 2)) : nil
        }
    }
}
