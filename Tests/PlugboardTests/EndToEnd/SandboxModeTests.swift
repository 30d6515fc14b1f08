import Foundation
import Glibc
import Testing
@testable import Plugboard
@testable import plugboard

/// The sandbox's modes and its failures, through `plugboard run`: a worker that cannot confine
/// itself never serves (fail closed), a sandbox asked of plugins in process is a usage error,
/// and the load report says how each library is confined.
@Suite struct SandboxModeTests {
    /// Runs `plugboard run --json` over two good plugins with `extra`; the status and the lines.
    private func run(_ workspace: Workspace, _ extra: [String]) throws -> (status: Int32, lines: [RunLine], errors: String) {
        try GoodPlugins.build(in: workspace.plugins)
        let result = try CLI.run(["run", "--json", "--plugin-dir", workspace.plugins,
                                  "--container", workspace.root.file("container")] + extra)
        let lines = try #require(CLI.runLines(result.output), "not run lines:\n\(result.output)")
        return (result.status, lines, result.errorOutput)
    }

    /// A policy whose grant cannot be applied (a path too long to open) makes the worker end
    /// before it loads anything: the library fails with the reason, and the other library works.
    @Test func aSandboxThatCannotBeAppliedLeavesNoWorkerServing() throws {
        let workspace = try Workspace("sandbox-fail-closed")
        defer { workspace.remove() }
        let policy = workspace.root.file("policy.json")
        try JSONSerialization.data(withJSONObject: ["libraries": [GoodPlugins.firstFile: ["read": ["/" + String(repeating: "a", count: 5000)]]]])
            .write(to: URL(fileURLWithPath: policy))
        let run = try run(workspace, ["--policy", policy])
        let loads = run.lines.compactMap(\.load)
        let first = try #require(loads.first { $0.path.hasSuffix("/" + GoodPlugins.firstFile) }, "\(run.lines)")
        #expect(first.status == .failed, "\(first)")
        #expect(first.failure?.message.contains("could not confine itself") == true, "\(first)")
        let said = run.lines.compactMap(\.output).contains { $0.text.contains("the sandbox cannot be applied: cannot open") }
        #expect(said, "the worker says why: \(run.lines)")
        let last = try #require(loads.first { $0.path.hasSuffix("/" + GoodPlugins.lastFile) })
        #expect(last.status == .loaded, "\(last)")
        #expect(run.lines.logs(of: GoodPlugins.firstID).isEmpty, "nothing of the library ran: \(run.lines)")
    }

    /// Where `pidfd_open` is refused (as some containers refuse it), a worker with programs to run
    /// gets no process-group guard: `--sandbox strict` does not start it, `--sandbox best` starts it
    /// with a warning in its load report; a library that may run no program needs no guard.
    @Test(.enabled(if: SandboxSupport.kernel.missing.isEmpty, "the kernel lacks a layer: strict refuses every worker"))
    func aWorkerThatMayRunProgramsNeedsPidfdOpen() throws {
        let workspace = try Workspace("sandbox-no-pidfd")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let launcher = [try Self.refusing(in: workspace), "pidfd_open"]
        let policy = workspace.root.file("policy.json")
        try #"{"libraries": {"\#(GoodPlugins.firstFile)": {"execute": ["/bin/true"]}}}"#.write(toFile: policy, atomically: true, encoding: .utf8)
        let base = ["run", "--json", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("container"), "--policy", policy]
        let missing = "this kernel lacks pidfd_open, with which the processes a plugin starts end with its worker"
        func loads(_ extra: [String]) throws -> (granted: LoadReport?, other: LoadReport?) {
            let result = try CLI.run(through: launcher, base + extra)
            let lines = try #require(CLI.runLines(result.output), "\(result.output)\n\(result.errorOutput)")
            let loads = lines.compactMap(\.load)
            return (loads.first { $0.path.hasSuffix("/" + GoodPlugins.firstFile) }, loads.first { $0.path.hasSuffix("/" + GoodPlugins.lastFile) })
        }

        let strict = try loads(["--sandbox", "strict"])
        #expect(strict.granted?.status == .failed && strict.granted?.failure?.message.contains("--sandbox strict: \(missing)") == true,
                "\(String(describing: strict.granted))")
        #expect(strict.other?.status == .loaded, "\(String(describing: strict.other))")

        let best = try loads([])
        #expect(best.granted?.status == .loaded && best.granted?.warnings.contains { $0.hasPrefix("sandbox: \(missing)") } == true,
                "\(String(describing: best.granted))")
        #expect(best.other?.status == .loaded && best.other?.warnings.isEmpty == true, "\(String(describing: best.other))")
    }

    /// Builds `Fixtures/refusing.c`, which runs a program with the system calls it names refused.
    static func refusing(in workspace: Workspace) throws -> String {
        let launcher = workspace.root.file("refusing")
        let built = try PlugboardTests.run("/usr/bin/env", ["cc", "-std=c11", "-Wall", "-Wextra", "-Werror",
                                                            TestPaths.fixtures + "/refusing.c", "-o", launcher, "-lseccomp"])
        try #require(built.status == 0, "\(built.errorOutput)")
        return launcher
    }

    /// A plugin that starts threads without end (a thread bomb, which would take every process id of
    /// the system) is stopped at its worker's thread limit, also when the host runs as root, whose
    /// threads the kernel otherwise never limits: 512 by default, or what the grant says. The
    /// other plugins get every event.
    @Test(.enabled(if: SandboxSupport.kernel.threads, "this system cannot count a worker's threads apart"))
    func aThreadBombStopsAtTheWorkersThreadLimit() throws {
        let workspace = try Workspace("sandbox-thread-bomb")
        defer { workspace.remove() }
        try PluginCompiler.hostile("libbomb.so", in: workspace.plugins, ["THREAD_BOMB_AT=AT_WILL_FINISH", "THREAD_BOMB_MAX=2048"])
        let policy = workspace.root.file("policy.json")
        try Data(#"{"libraries": {"libbomb.so": {"threads": 64}}}"#.utf8).write(to: URL(fileURLWithPath: policy))
        for (extra, limit) in [([String](), 512), (["--policy", policy], 64)] {
            let run = try run(workspace, extra)
            let bomb = run.lines.logs(of: "com.example.hostile").first { $0.hasPrefix("bomb: ") }
            let started = bomb.flatMap { Int($0.dropFirst("bomb: ".count).prefix { $0.isNumber }) }
            #expect(bomb?.hasSuffix(" threads started, then EAGAIN") == true, "limit \(limit): \(run.lines)")
            #expect(started.map { $0 < limit && $0 > limit - 16 } == true, "limit \(limit): \(String(describing: bomb))")
            #expect(run.lines.logs(of: GoodPlugins.firstID).contains("will-terminate"), "limit \(limit): \(run.lines)")
            #expect(run.status == 0, "limit \(limit): \(run.errors)")
        }
    }

    /// The same for a host that does not run as root, whose workers count their threads in a user
    /// namespace of their own: the host runs here as `nobody` (through `setpriv`).
    @Test(.enabled(if: SandboxSupport.kernel.threads, "this system cannot count a worker's threads apart"),
          .enabled(if: PrivilegeDrop.unavailableReason == nil, EndToEndLoadingTests.nobodyReason))
    func aThreadBombStopsAtTheThreadLimitOfAWorkerOfAnotherUser() throws {
        let workspace = try Workspace("sandbox-thread-bomb-user")
        defer { workspace.remove() }
        try PluginCompiler.hostile("libbomb.so", in: workspace.plugins, ["THREAD_BOMB_AT=AT_WILL_FINISH", "THREAD_BOMB_MAX=2048"])
        // nobody writes the container beside the plugins, which root keeps.
        try #require(chown(workspace.root.path, 65534, 65534) == 0 && chmod(workspace.plugins, 0o755) == 0)
        let (tool, arguments) = PrivilegeDrop.asNobody(try CLI.binary(), ["run", "--json", "--no-cache", "--plugin-dir", workspace.plugins,
                                                                          "--container", workspace.root.file("container")])
        let result = try PlugboardTests.run(tool, arguments)
        let lines = try #require(CLI.runLines(result.output), "\(result.output)\n\(result.errorOutput)")
        #expect(lines.compactMap(\.load).first?.sandbox?.layers.contains("threads-512") == true, "\(lines)")
        let bomb = lines.logs(of: "com.example.hostile").first { $0.hasPrefix("bomb: ") }
        let started = bomb.flatMap { Int($0.dropFirst("bomb: ".count).prefix { $0.isNumber }) }
        #expect(bomb?.hasSuffix(" threads started, then EAGAIN") == true && started.map { $0 < 512 && $0 > 496 } == true,
                "\(String(describing: bomb))")
        #expect(result.status == 0, "\(result.errorOutput)")
    }

    /// Where a worker's threads cannot be counted apart (here a host running as root that may not
    /// give its workers a real user id of their own, nor a user namespace), `--sandbox strict` starts
    /// no worker and `best` warns of the missing layer and starts them without a thread limit.
    @Test(.enabled(if: getuid() == 0 && SandboxSupport.kernel.missing.isEmpty, "needs root, and a kernel with every layer"))
    func withoutAThreadCountStrictRefusesAndBestWarns() throws {
        let workspace = try Workspace("sandbox-no-thread-count")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let launcher = [try Self.refusing(in: workspace), "setresuid,unshare"]
        let base = ["run", "--json", "--plugin-dir", workspace.plugins, "--container", workspace.root.file("container")]
        let missing = "this kernel lacks a thread limit of each worker's own"

        let strict = try CLI.run(through: launcher, base + ["--sandbox", "strict"])
        let strictLoads = try #require(CLI.runLines(strict.output), "\(strict.output)\n\(strict.errorOutput)").compactMap(\.load)
        #expect(!strictLoads.isEmpty && strictLoads.allSatisfy {
            $0.status == .failed && $0.failure?.message.contains("--sandbox strict: \(missing)") == true
        }, "\(strictLoads)")

        let best = try CLI.run(through: launcher, base)
        let bestLines = try #require(CLI.runLines(best.output), "\(best.output)\n\(best.errorOutput)")
        #expect(bestLines.compactMap(\.load).allSatisfy { $0.status == .loaded && $0.sandbox?.layers.contains { $0.hasPrefix("threads-") } == false },
                "\(bestLines)")
        #expect(bestLines.compactMap(\.log).contains { $0.message.hasPrefix("sandbox: \(missing)") }, "\(bestLines)")
        #expect(best.status == 0, "\(best.errorOutput)")
    }

    /// The load report says how each library is confined: the layers and grants, or off.
    @Test func theLoadReportNamesTheSandbox() throws {
        let workspace = try Workspace("sandbox-report")
        defer { workspace.remove() }
        let confined = try run(workspace, [])
        let sandboxes = confined.lines.compactMap(\.load).compactMap(\.sandbox)
        let layers = SandboxSupport.kernel.landlockABI > 0 ? ["landlock-\(SandboxSupport.kernel.landlockABI)"] : []
        let threads = SandboxSupport.kernel.threads ? ["threads-\(SandboxGrant.defaultThreads)"] : []
        #expect(sandboxes.count == 2 && sandboxes.allSatisfy {
            $0.layers == layers + (SandboxSupport.kernel.seccomp ? ["seccomp"] : []) + threads && $0.mode == nil
        }, "\(sandboxes)")
        let off = try run(workspace, ["--sandbox", "off"])
        #expect(off.status == 0)
        #expect(off.lines.compactMap(\.load).allSatisfy { $0.sandbox?.mode == "off" }, "\(off.lines)")
    }

    /// A worker runs under the documented limits: no core dumps, 1024 open files and 512 threads by
    /// default; memory, CPU time, open files and threads as the grant says.
    @Test func theWorkerRunsUnderItsLimits() throws {
        let workspace = try Workspace("sandbox-limits")
        defer { workspace.remove() }
        _ = try PluginCompiler.compile(TestPaths.fixtures + "/configurable_plugin.c", to: workspace.plugins + "/liblimits.so",
                                       flags: [#"-DFIX_ID="com.limits.probe""#, "-DFIX_LAUNCH=1", TestPaths.fixtures + "/limits_probe.c"])
        func limits(_ extra: [String]) throws -> String? {
            let run = try run(workspace, extra)
            return run.lines.compactMap(\.output).first { $0.text.hasPrefix("limits ") }?.text
        }
        let standard = try #require(try limits([]))
        let limitsThreads = SandboxSupport.kernel.threads
        #expect(standard.contains(" nofile=1024 core=0 nproc=") && (!limitsThreads || standard.hasSuffix(" nproc=512")), "\(standard)")
        let policy = workspace.root.file("policy.json")
        try Data(#"{"libraries": {"liblimits.so": {"memory": "256M", "cpu": 30, "open-files": 200, "threads": 40}}}"#.utf8)
            .write(to: URL(fileURLWithPath: policy))
        let granted = try #require(try limits(["--policy", policy]))
        #expect(granted.hasPrefix("limits data=268435456 cpu=30 nofile=200 core=0 nproc=")
                    && (!limitsThreads || granted.hasSuffix(" nproc=40")), "\(granted)")
    }

    /// A library names the libraries it needs, so those names must not make anything else readable:
    /// a `RUNPATH` folder whose `libc.so.6` is a link to a folder of secrets, or to a secret file,
    /// grants nothing (only regular ELF files are granted, checked on the descriptor the rule is made from).
    @Test(arguments: ["folder", "file"]) func aLibraryCannotMakeAFileReadableByNeedingIt(_ target: String) throws {
        let workspace = try Workspace("sandbox-needed-" + target)
        defer { workspace.remove() }
        let secrets = workspace.root.file("secrets")
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: URL(fileURLWithPath: secrets + "/secret"))
        let dependencies = workspace.root.file("deps")
        try FileManager.default.createDirectory(atPath: dependencies, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dependencies + "/libc.so.6",
                                                   withDestinationPath: target == "folder" ? secrets : secrets + "/secret")
        _ = try PluginCompiler.compile(TestPaths.fixtures + "/configurable_plugin.c", to: workspace.plugins + "/libneeds.so", flags: [
            #"-DFIX_ID="com.needs.probe""#, "-DFIX_LAUNCH=1", "-DREAD_TARGET=\"\(secrets)/secret\"",
            TestPaths.fixtures + "/reads_file.c", "-Wl,-rpath,$ORIGIN/../deps", "-Wl,--enable-new-dtags",
        ])
        let confined = try run(workspace, [])
        let verdict = confined.lines.compactMap(\.output).first { $0.text.hasPrefix("read ") }?.text
        #expect(verdict == "read blocked 13", "EACCES: \(confined.lines)")
        let control = try run(workspace, ["--sandbox", "off"])
        #expect(control.lines.compactMap(\.output).contains { $0.text == "read allowed" }, "the probe can read it unconfined")
    }

    /// A sandbox needs a worker: asked of plugins in process, it is a usage error.
    @Test func aSandboxAskedOfPluginsInProcessIsAUsageError() throws {
        let workspace = try Workspace("sandbox-in-process")
        defer { workspace.remove() }
        let strict = try CLI.run(["run", "--isolation", "none", "--sandbox", "strict", "--plugin-dir", workspace.plugins])
        #expect(strict.status == 64 && strict.errorOutput.contains("--sandbox strict needs plugin workers"), "\(strict.errorOutput)")
        let policy = workspace.root.file("policy.json")
        try Data(#"{"libraries": {"*": {"environment": ["TZ"]}}}"#.utf8).write(to: URL(fileURLWithPath: policy))
        let granted = try CLI.run(["run", "--isolation", "none", "--policy", policy, "--plugin-dir", workspace.plugins])
        #expect(granted.status == 64 && granted.errorOutput.contains("grants libraries sandbox rights"), "\(granted.errorOutput)")
    }

    /// Grants in the policy file are checked like the rest of it: a fault names where and why.
    @Test func aGrantFaultNamesWhereAndWhy() throws {
        func error(_ json: String) -> String? {
            do {
                _ = try AccessPolicy(json: Data(json.utf8), source: "policy.json")
                return nil
            } catch {
                return error.description
            }
        }
        #expect(error(#"{"libraries": {"libx.so": {"read": ["etc"]}}}"#)
            == #"the policy file 'policy.json': libraries.libx.so.read[0] names "etc", which is not an absolute path"#)
        #expect(error(#"{"libraries": {"libx.so": {"network": {"connect": [0]}}}}"#)
            == "the policy file 'policy.json': libraries.libx.so.network.connect[0] must be a TCP port, 1 to 65535")
        #expect(error(#"{"libraries": {"libx.so": {"memory": "12Q"}}}"#)?.contains("libraries.libx.so.memory must be a size in bytes") == true)
        #expect(error(#"{"libraries": {"lib/x.so": {}}}"#)?.contains("must be a file name (libx.so), an absolute path, or *") == true)
        #expect(error(#"{"libraries": {"libx.so": {"threads": 15}}}"#)
            == "the policy file 'policy.json': libraries.libx.so.threads must be a whole number of at least 16")
        let policy = try AccessPolicy(json: Data(#"{"libraries": {"libx.so": {"memory": "2M", "network": "all"}, "*": {"cpu": 5}}}"#.utf8),
                                      source: "policy.json")
        #expect(policy.grant(forLibrary: "/p/libx.so").memoryBytes == 2 << 20)
        #expect(policy.grant(forLibrary: "/p/libx.so").network == .all)
        #expect(policy.grant(forLibrary: "/p/liby.so").cpuSeconds == 5)
    }
}
