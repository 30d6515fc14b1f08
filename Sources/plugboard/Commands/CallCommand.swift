import ArgumentParser
import Glibc
import Plugboard
import PlugboardFiles

/// `plugboard call PLUGIN_ID.FUNCTION ARG…`: load the plugins, call one function
/// with arguments read by its declared types, print the result.
struct CallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call a function a plugin declares, with arguments read by its signature, and print the result.",
        discussion: """
            Loads the plugins as run does (--isolation process by default: each library in a \
            worker), sends no lifecycle event (it makes the container's directories itself, for \
            the files service), resolves PLUGIN_ID.FUNCTION (the functions are \
            listed by plugboard list and inspect), calls it once (--repeat N: N times, the \
            call prepared once), prints the result and shuts the plugins down. With --isolation process the call runs in the plugin's worker (a \
            crash there is reported in one line and exits 5); --isolation none calls it in this \
            process.

            Arguments, one per declared parameter, read by its type:
              bool           true or false (nothing else)
              int8 … uint64  decimal (-12, +7) or hexadecimal (0xff, -0x80), within the type's range
              float, double  decimal or hexadecimal (2.5, -1e-3, 0x1p4), nan, inf, -inf (any case);
                             a finite number too large for the type is refused
              string         the argument as given (it must be valid UTF-8)
              bytes          hexadecimal digits, two per byte (00ff; "" for none), or @FILE for
                             the bytes of a regular file (hexadecimal has no @, so nothing needs
                             escaping)
            The strings and bytes of one call carry at most 64 MiB less 64 KiB together.
              pointer        refused: an address means nothing in another process
            An argument that starts with - is a value (-5, -inf); put -- before arguments \
            that look like plugboard's own options (--json).

            Result: the value on standard output (nothing for void): true/false, integers in \
            decimal, floats in their shortest exact form (nan, inf, -inf, -0.0), a string as \
            returned (control characters escaped: \\n, \\x1b), bytes in lowercase hexadecimal, a \
            pointer as 0x…. With --json, one document: {"function", "signature", "result": \
            {"type", "value"}, "nanoseconds"}; value is a JSON number or true/false, a string \
            for a string, bytes (hexadecimal), a pointer and for nan, inf and -inf (JSON has \
            no such numbers), null for void; nanoseconds is the call's duration, argument \
            conversion included (with --repeat, the mean of the calls, and "calls": N). An error is one line on standard error, "plugboard call: …"; \
            with --json it is one document on standard output instead, {"error": "…", \
            "exitCode": N}, for every error the call itself meets (from a malformed \
            PLUGIN_ID.FUNCTION to a crash in the worker). Still text on standard error: \
            what the option parser refuses (a bad --isolation, --call-timeout, --container or --cache-dir value), and, in \
            process, the fault line of a crash, which ends plugboard. What plugins log or \
            print goes to standard error. There is no --restart: a call that fails ends the \
            command, so a restarted worker would never be used.

            --repeat N prepares the call once (the arguments are checked and converted to C \
            once) and makes it N times, printing the last result: a quick way to time a \
            function, and the loop an embedding program writes with \
            PluginFunctionHandle.prepare. The first call that fails ends the loop, as one call would.

            Which error gives which exit code: 1 for no such plugin or function (the error lists \
            those there are), a declaration refused at load, an invalid result; 5 when the \
            plugin's worker crashed, exited or hung during the call; 64 for a malformed \
            PLUGIN_ID.FUNCTION, a missing or extra argument (the signature is shown), an argument that is not its type (position, type and value named). \
            In process, a crash in the function ends plugboard after one line on standard error \
            naming the plugin and the function.

            \(ExitCodes.helpText)
            """)

    @Argument(help: ArgumentHelp("The function: the plugin's id, a dot and the function's name (com.example.units.convert).",
                                 valueName: "plugin-id.function"))
    var function: String

    @Argument(parsing: .allUnrecognized,
              help: ArgumentHelp("The function's arguments, one per declared parameter.", valueName: "arg"))
    var arguments: [String] = []

    @Option(name: .customLong("repeat"), parsing: .unconditional,  // "-1" is a value to refuse, not an option
            help: ArgumentHelp("Make the call N times, prepared once (1 or more).", valueName: "n"))
    var repetitions = 1

    @OptionGroup var search: PluginSearchOptions
    @OptionGroup var trust: TrustOptions
    @OptionGroup var container: ContainerOptions
    @OptionGroup var callTimeout: CallTimeoutOptions
    @OptionGroup var isolation: IsolationOptions
    @OptionGroup var sandbox: SandboxOptions
    @OptionGroup var cache: ScanCacheOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard repetitions >= 1 else { throw ValidationError("--repeat takes a number of calls, 1 or more (not \(repetitions))") }
    }

    func run() throws {
        let console = Console.takeStandardOutput()
        do {
            try call(printingTo: console)
        } catch let failure as CallFailure {
            throw report(failure, on: console)
        } catch let error as ValidationError where output.json {
            throw report(CallFailure(error.message, ExitCodes.usage), on: console)
        }
    }

    /// Loads the plugins, calls the function and prints its result; a failure is a ``CallFailure``.
    private func call(printingTo console: Console) throws {
        let address: FunctionAddress
        do {
            address = try FunctionAddress(parsing: function)
        } catch {
            throw CallFailure(error.description, ExitCodes.usage)
        }
        // No launch comes, whose files plugin would report directories that cannot be made: a
        // warning says so, and a function that does not use the files service is called anyway.
        let (facade, directoriesFailure) = try container.facade()
        if let directoriesFailure {
            StandardStream.writeError(ControlCharacters.escaped("plugboard call: warning: cannot create the container's directories: \(directoriesFailure)"))
        }
        FaultReporter.install()
        try sandbox.check(inProcess: isolation.mode == .none, policy: nil)
        let host = PluginHost(fileFacade: facade, callTimeout: callTimeout.timeout, isolation: try isolation.isolation(),
                              sandbox: sandbox.mode, logHandler: { StandardStream.writeError(ControlCharacters.escaped(HumanFormat.log($0))) },
                              outputHandler: StandardStream.writeOutputLine)
        defer { host.shutdown() }
        host.scanCache = try cache.open()
        host.retryCrashed = cache.retryFailed
        host.reusesScanCache = !cache.noCache
        let searchPath = search.searchPath
        let reports = host.loadPlugins(from: searchPath, trust: trust.policy)
        host.scanCache?.save()
        for report in reports where report.status == .failed {
            StandardStream.writeError(ControlCharacters.escaped("plugboard call: warning: " + (HumanFormat.load(report).first ?? report.path)))
        }

        let handle: PluginFunctionHandle
        do {
            handle = try host.function(address)
        } catch {
            throw CallFailure(error.description + Self.whatThereIs(for: error, in: host, searchPath: searchPath), ExitCodes.failure)
        }
        let values: [PluginValue]
        do {
            values = try CallArguments.parse(Self.values(arguments), for: address, signature: handle.signature)
        } catch {
            throw CallFailure(error.description, ExitCodes.usage)
        }
        let started = ContinuousClock.now
        var result = PluginValue.void
        do {
            let call = try handle.prepare(values)
            for _ in 0..<repetitions { result = try call.call() }
        } catch {
            throw CallFailure(error.description, host.failures.isEmpty ? ExitCodes.failure : ExitCodes.pluginFailed)
        }
        let elapsed = started.duration(to: .now)
        // No event runs, so no plugin observes: a notification the function posted reaches no one.
        let posted = host.deliverNotifications()
        if !posted.isEmpty {
            var counts: [String: Int] = [:], names: [String] = []
            for notification in posted.unobserved + posted.dropped + posted.undelivered {
                let name = "\(notification.name) from \(notification.sender)"
                if counts[name] == nil { names.append(name) }
                counts[name, default: 0] += 1
            }
            let list = names.map { counts[$0, default: 1] > 1 ? "\($0) (\(counts[$0, default: 1]) times)" : $0 }
            StandardStream.writeError(ControlCharacters.escaped("plugboard call: warning: the call posted " + list.joined(separator: ", ")
                + "; call sends no lifecycle event, so no plugin observes (run delivers notifications)"))
        }
        if output.json {
            let nanoseconds = UInt64(elapsed.components.seconds) * 1_000_000_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000)
            console.jsonDocument(CallResultFormat.Document(address: address, signature: handle.signature, value: result,
                                                           nanoseconds: nanoseconds / UInt64(repetitions),
                                                           calls: repetitions == 1 ? nil : repetitions))
        } else if let line = CallResultFormat.human(result) {
            console.line(line)
        }
    }

    /// Says `failure`: with `--json` as one document on standard output, else as one line on
    /// standard error, `plugboard call: …`. Returns its exit code to throw.
    private func report(_ failure: CallFailure, on console: Console) -> ExitCode {
        if output.json {
            console.jsonDocument(failure)
        } else {
            StandardStream.writeError(ControlCharacters.escaped("plugboard call: " + failure.error))
        }
        return ExitCode(failure.exitCode)
    }

    /// The function's arguments: what was captured, without the first `--` (it ends
    /// plugboard's options, so that `-- --json` passes the text `--json`).
    private static func values(_ captured: [String]) -> [String] {
        guard let terminator = captured.firstIndex(of: "--") else { return captured }
        return Array(captured[..<terminator] + captured[(terminator + 1)...])
    }

    /// For an unknown plugin or function, what can be called instead: "; loaded plugins with
    /// functions: com.example.units (convert, describe, units)", or the plugin's functions.
    private static func whatThereIs(for error: PluginCallError, in host: PluginHost, searchPath: PluginSearchPath) -> String {
        let plugins = host.plugins
        switch error {
        case .unknownPlugin:
            if plugins.isEmpty {
                return "; no plugin was loaded from " + searchPath.directories.map(\.path).joined(separator: ", ")
            }
            let offering = plugins.filter { !$0.functions.isEmpty }
            guard !offering.isEmpty else { return "; no loaded plugin declares a function" }
            return "; loaded plugins with functions: "
                + offering.map { "\($0.descriptor.id) (\($0.functions.map(\.name).joined(separator: ", ")))" }.joined(separator: ", ")
        case .unknownFunction(let address):
            let functions = plugins.first { $0.descriptor.id == address.plugin }?.functions ?? []
            return functions.isEmpty ? "; it declares no function"
                : "; it declares: " + functions.map { "\($0.name) \($0.signature)" }.joined(separator: ", ")
        default:
            return ""
        }
    }
}
