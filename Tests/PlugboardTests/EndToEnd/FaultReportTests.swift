import Foundation
import Glibc
import Testing

/// Plugin code that crashes, exits or does not return inside `plugboard run`
/// (in process): the host names the plugin, the callback and the library.
@Suite struct FaultReportTests {
    /// A fatal signal in a callback: one line naming plugin, signal, callback
    /// and library, then the process dies of that signal as before.
    @Test(arguments: [
        (["SEGV_AT=AT_OPEN_URL"], false, "SIGSEGV", "open_url"),
        (["ABORT_AT=AT_OPEN_URL"], false, "SIGABRT", "open_url"),
        (["THROW_AT=AT_OPEN_URL"], true, "SIGABRT", "open_url"),
        (["SEGV_AT=AT_WILL_FINISH"], false, "SIGSEGV", "will_finish_launching"),
        (["ABORT_AT=AT_TERMINATE"], false, "SIGABRT", "will_terminate"),
    ])
    func aFatalSignalNamesThePlugin(definitions: [String], cplusplus: Bool, signal: String, callback: String) throws {
        let workspace = try Workspace("fault")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, definitions, cplusplus: cplusplus)
        let result = try CLI.run(["run", "--isolation", "none", "--plugin-dir", workspace.plugins, "--open-url", "myapp://x",
                                  "--container", workspace.root.file("container")])
        let line = "plugboard: com.example.hostile crashed with \(signal) in \(callback) (\(library))"
        #expect(result.errorOutput.components(separatedBy: line).count == 2, "stderr:\n\(result.errorOutput)")
        #expect(result.status == 128 + (signal == "SIGSEGV" ? SIGSEGV : SIGABRT), "stderr:\n\(result.errorOutput)")
        #expect(result.output.contains("will-finish-launching"), "the good plugins ran before the crash")
    }

    /// A fatal signal in the library's own functions names the library and the stage.
    @Test(arguments: [
        (["SEGV_AT=AT_INIT"], false, "SIGSEGV", "init"),
        (["ABORT_AT=AT_INIT"], false, "SIGABRT", "init"),
        (["THROW_AT=AT_INIT"], true, "SIGABRT", "init"),
        (["SEGV_AT=AT_ENTRY"], false, "SIGSEGV", "plugboard_entry"),
        (["ABORT_AT=AT_REGISTER"], false, "SIGABRT", "register_plugins"),
        (["SEGV_AT=AT_DEINIT"], false, "SIGSEGV", "deinit"),
        (["SEGV_AT=AT_CONSTRUCTOR"], false, "SIGSEGV", "dlopen"),
    ])
    func aFatalSignalWhileLoadingNamesTheLibrary(definitions: [String], cplusplus: Bool, signal: String,
                                                 stage: String) throws {
        let workspace = try Workspace("fault-load")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, definitions, cplusplus: cplusplus)
        let line = "plugboard: \(library) crashed with \(signal) in \(stage)"
        let run = try CLI.run(["run", "--isolation", "none", "--container", workspace.root.file("container"), "--plugin-dir", workspace.plugins])
        #expect(run.errorOutput.components(separatedBy: line + "\n").count == 2, "stderr:\n\(run.errorOutput)")
        #expect(run.status == 128 + (signal == "SIGSEGV" ? SIGSEGV : SIGABRT))
        // list loads in workers: the worker dies, its own line names the stage, list goes on.
        let list = try CLI.run(["list", "--plugin-dir", workspace.plugins])
        #expect(list.errorOutput.contains("[\(library)] stderr: \(line)"), "stderr:\n\(list.errorOutput)")
        #expect(list.status == (stage == "deinit" ? 0 : 1), "\(list.output)")
        #expect(list.output.contains(stage == "deinit" ? "3 loaded" : "2 loaded"), "\(list.output)")
    }

    /// Without the Swift runtime's backtrace the line is still there.
    @Test func theLineNeedsNoBacktracer() throws {
        let workspace = try Workspace("fault-nobacktrace")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["SEGV_AT=AT_OPEN_URL"])
        let result = try CLI.run(["run", "--isolation", "none", "--plugin-dir", workspace.plugins, "--open-url", "myapp://x",
                                  "--container", workspace.root.file("container")],
                                 environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(result.errorOutput.contains(
            "plugboard: com.example.hostile crashed with SIGSEGV in open_url (\(library))\n"), "\(result.errorOutput)")
        #expect(result.status == 128 + SIGSEGV)
    }

    /// `exit` from plugin code is named by the host's atexit check.
    @Test func anExitIsNamed() throws {
        let workspace = try Workspace("fault-exit")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["EXIT_AT=AT_OPEN_URL"])
        let result = try CLI.run(["run", "--isolation", "none", "--plugin-dir", workspace.plugins, "--open-url", "myapp://x",
                                  "--container", workspace.root.file("container")])
        #expect(result.errorOutput.contains("plugboard: com.example.hostile called exit in open_url (\(library))\n"),
                "\(result.errorOutput)")
    }

    /// A callback that spins past `--call-timeout` is named while it still runs, with its library, in a
    /// line of the host's about the plugin (as in a worker); the host cannot stop it in process.
    @Test func aCallPastTheTimeoutIsNamed() throws {
        let workspace = try Workspace("fault-timeout")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["SPIN_AT=AT_OPEN_URL"])
        let process = try LiveProcess(CLI.binary(), ["run", "--json", "--isolation", "none", "--plugin-dir", workspace.plugins,
                                                      "--open-url", "myapp://x", "--container", workspace.root.file("container"),
                                                      "--call-timeout", "0.5"])
        defer { process.stop() }
        #expect(process.waitForOutput(containing: "com.example.hostile did not return from open_url within 0.5 s (\(library)): a plugin "
                                      + #"in the host's process cannot be stopped, so the host waits for it","plugin":"com.example.hostile","#
                                      + #""source":"plugboard","type":"log"}"#),
                "\(process.output)")
    }

    /// An `init`, or a constructor while the host opens the library, that spins past
    /// `--call-timeout` is named too.
    @Test(arguments: [("AT_INIT", "init"), ("AT_CONSTRUCTOR", "dlopen")])
    func aLibraryFunctionPastTheTimeoutIsNamed(place: String, stage: String) throws {
        let workspace = try Workspace("fault-timeout-\(stage)")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["SPIN_AT=\(place)"])
        let process = try LiveProcess(CLI.binary(), ["run", "--isolation", "none", "--plugin-dir", workspace.plugins,
                                                      "--container", workspace.root.file("container"),
                                                      "--call-timeout", "0.5"])
        defer { process.stop() }
        #expect(process.waitForOutput(containing: "\(library) did not return from \(stage) within 0.5 s"), "\(process.output)")
    }

    /// `--call-timeout` takes seconds from 0 (off) upwards.
    @Test(arguments: ["-1", "abc", "nan", "1e9"])
    func aBadTimeoutIsAUsageError(value: String) throws {
        let result = try CLI.run(["run", "--plugin-dir", "/nonexistent", "--call-timeout=\(value)"])
        #expect(result.status == 64, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("call-timeout"))
    }
}
