import Foundation
import Testing
@testable import Plugboard

/// The sandbox as a worker's environment carries it: every field survives, whatever bytes a
/// path holds, and a damaged text is an error naming the field.
@Suite struct WorkerSandboxEncodingTests {
    @Test func everyFieldSurvivesTheEnvironment() throws {
        var grant = SandboxGrant()
        grant.read = ["/a,b/c=d", "/new\nline/ü"]
        grant.write = ["/w"]
        grant.execute = ["/bin/true"]
        grant.network = .ports(connect: [443, 8080], bind: [])
        grant.memoryBytes = 512 << 20
        grant.cpuSeconds = 60
        grant.openFiles = 4096
        grant.threads = 64
        let sandbox = WorkerSandbox(libraries: ["/p/lib x.so", "/q/second,one.so"], landlockABI: 7, seccomp: true, limitsThreads: true,
                                    requiresThreadLimit: true, grant: grant, filter: [0, 1, 0xFF])
        #expect(try WorkerSandbox(encoded: sandbox.encoded) == sandbox)
        let plain = WorkerSandbox(libraries: ["/p/l.so"], landlockABI: 0, seccomp: false, limitsThreads: false, requiresThreadLimit: false, grant: SandboxGrant())
        #expect(try WorkerSandbox(encoded: plain.encoded) == plain)
    }

    @Test func aDamagedTextNamesTheField() {
        let text = WorkerSandbox(libraries: ["/p/l.so"], landlockABI: 7, seccomp: true, limitsThreads: true, requiresThreadLimit: false, grant: SandboxGrant()).encoded
        #expect(throws: SandboxFailure.self) { try WorkerSandbox(encoded: text.replacingOccurrences(of: "network=none", with: "network=some")) }
        #expect(throws: SandboxFailure.self) { try WorkerSandbox(encoded: text.replacingOccurrences(of: "library=", with: "library=zz")) }
        #expect(throws: SandboxFailure.self) { try WorkerSandbox(encoded: "library") }
    }

    /// The host compiles each kind of filter once; the filter is a whole BPF program.
    @Test func theFilterIsCompiledOnceAndIsABPFProgram() throws {
        guard SandboxSupport.kernel.seccomp else { return }
        let first = try #require(try WorkerSandbox.plan(for: ["/p/a.so"], mode: .best, support: .kernel, grant: SandboxGrant()))
        let second = try #require(try WorkerSandbox.plan(for: ["/p/b.so"], mode: .best, support: .kernel, grant: SandboxGrant()))
        #expect(!first.filter.isEmpty && first.filter.count % 8 == 0)
        #expect(first.filter == second.filter)
        var granted = SandboxGrant()
        granted.execute = ["/bin/true"]
        let executing = try #require(try WorkerSandbox.plan(for: ["/p/c.so"], mode: .best, support: .kernel, grant: granted))
        #expect(executing.filter != first.filter, "an execute grant lets execve through")
    }
}
