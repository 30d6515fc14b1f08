import Foundation
import Glibc
import Testing

/// A confined worker cannot change the scheduling, priority or limits of another process, which
/// Landlock does not see: with them it could slow its host, or any process of its user, or leave the
/// host without open files or CPU time. Its own calling thread it may still change, also named by id.
/// As root, the capabilities the host keeps already refuse most of these (the kernel lets a process
/// without capabilities change only one that holds none of more), so the host also runs as nobody.
@Suite struct SandboxSchedulingTests {
    static let host = "reschedule host: limits EPERM, nice EPERM, affinity EPERM, scheduler EPERM, io EPERM"
    static let itself = "reschedule self: limits ok, nice ok, affinity ok, scheduler ok, io ok"

    @Test func aWorkerChangesItsOwnSchedulingAndNotTheHosts() throws {
        let result = try Self.run(asNobody: false)
        Self.expectConfined(result)
    }

    @Test(.enabled(if: PrivilegeDrop.unavailableReason == nil, "the binary cannot run as nobody here"))
    func aWorkerOfAHostRunAsAnOrdinaryUserCannotReachIt() throws {
        let result = try Self.run(asNobody: true)
        Self.expectConfined(result)
    }

    /// Runs the hostile plugin (RESCHEDULE_AT in did-finish-launching) in a worker of `plugboard run`.
    private static func run(asNobody: Bool) throws -> ProcessResult {
        let workspace = try Workspace("scheduling")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["RESCHEDULE_AT=AT_WILL_FINISH"])
        let box = workspace.root.file("box")
        try FileManager.default.createDirectory(atPath: box, withIntermediateDirectories: false)
        #expect(chmod(workspace.root.path, 0o755) == 0 && chmod(workspace.plugins, 0o755) == 0 && chmod(box, 0o777) == 0)
        let arguments = ["run", "--isolation", "process", "--plugin-dir", workspace.plugins, "--container", box]
        let (tool, toolArguments) = asNobody ? PrivilegeDrop.asNobody(try CLI.binary(), arguments) : (try CLI.binary(), arguments)
        return try PlugboardTests.run(tool, toolArguments)
    }

    private static func expectConfined(_ result: ProcessResult, sourceLocation: SourceLocation = #_sourceLocation) {
        let output = result.output + result.errorOutput
        #expect(result.status == 0, "exit \(result.status)\n\(output)", sourceLocation: sourceLocation)
        #expect(output.contains(host), "the host was reached:\n\(output)", sourceLocation: sourceLocation)
        #expect(output.contains(itself), "the worker could not change its own thread:\n\(output)", sourceLocation: sourceLocation)
        #expect(output.contains("tried to read the limits of another process (prlimit64)"), "\(output)", sourceLocation: sourceLocation)
        #expect(output.contains("tried to change the scheduling or priority of another process or thread (setpriority)"),
                "\(output)", sourceLocation: sourceLocation)
    }
}
