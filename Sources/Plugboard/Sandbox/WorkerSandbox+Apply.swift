import CSandbox
import Glibc
import Synchronization

/// The worker's side: what a confined worker may read, and confining it.
extension WorkerSandbox {
    /// What every worker reads: the system's library folders and loader cache, locale and
    /// time-zone data, the processor list (thread pools size themselves by it), the harmless
    /// devices, and its own `/proc` entry.
    static let systemReadPaths = [
        "/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache", "/etc/localtime",
        "/etc/timezone", "/usr/share/zoneinfo", "/usr/share/locale", "/usr/share/i18n", "/etc/locale.alias",
        "/sys/devices/system/cpu", "/dev/zero", "/dev/urandom", "/dev/random", "/proc/self",
    ]
    /// What every worker writes: the null device.
    static let systemWritePaths = ["/dev/null"]

    /// The sandbox in `environment` (the worker's), if the host sent one; an error when it
    /// cannot be read.
    static func fromEnvironment(_ environment: [String: String]) throws(SandboxFailure) -> WorkerSandbox? {
        guard let text = environment[variable] else { return nil }
        return try WorkerSandbox(encoded: text)
    }

    /// Confines this process for good: call it while the process has one thread, before the
    /// library is opened. On error the process may be partly confined and must exit.
    func apply(environment: [String: String]) throws(SandboxFailure) {
        let read = Self.systemReadPaths + grant.read
        let needed = libraries.flatMap { LibraryDependencies.files(neededBy: $0, environment: environment) }
        let write = Self.systemWritePaths + grant.write
        // Executing a program also executes its interpreter (the dynamic loader, or a script's).
        let execute = grant.execute + grant.execute.compactMap(LibraryDependencies.interpreter(of:))
        var message = [CChar](repeating: 0, count: 512)
        let status = filter.withUnsafeBytes { compiled in
            withRules(read: read, needed: needed, write: write, execute: execute) { rules in
                rules.report_fd = seccomp ? Self.reportDescriptor : -1
                rules.last_kept_fd = WorkerServer.concurrentChannelDescriptor
                rules.filter = compiled.count > 0 ? compiled.baseAddress : nil
                rules.filter_size = compiled.count
                return pbs_apply(&rules, &message, message.count)
            }
        }
        guard status == 0 else { throw SandboxFailure(description: Self.text(message)) }
    }

    /// The seccomp filter of this sandbox as a BPF program (it depends on the execute and network grants only).
    func compileFilter() throws(SandboxFailure) -> [UInt8] {
        var program = [UInt8](repeating: 0, count: 1 << 16)
        var message = [CChar](repeating: 0, count: 512)
        let size = program.withUnsafeMutableBytes { buffer in
            withRules(read: [], needed: [], write: [], execute: grant.execute) { rules in
                pbs_filter_compile(&rules, buffer.baseAddress, buffer.count, &message, message.count)
            }
        }
        guard size > 0 else { throw SandboxFailure(description: Self.text(message)) }
        return Array(program.prefix(size))
    }

    /// Calls `body` with this sandbox's rules over its libraries, `read`, `needed`, `write` and `execute` (valid during the call).
    private func withRules<Result>(read: [String], needed: [String], write: [String], execute: [String],
                                   _ body: (inout pbs_rules_t) -> Result) -> Result {
        var connect: [UInt16] = [], bind: [UInt16] = []
        if case .ports(let connecting, let binding) = grant.network { (connect, bind) = (connecting, binding) }
        let lists = [read, needed, write, execute, libraries].map { $0.map { strdup($0) } }
        defer { lists.joined().forEach { free($0) } }
        let pointers = lists.map { $0.map { UnsafePointer($0) } }
        return pointers[0].withUnsafeBufferPointer { readPaths in
            pointers[1].withUnsafeBufferPointer { neededPaths in
                pointers[2].withUnsafeBufferPointer { writePaths in
                    pointers[3].withUnsafeBufferPointer { executePaths in
                        connect.withUnsafeBufferPointer { connectPorts in
                            bind.withUnsafeBufferPointer { bindPorts in
                                var rules = pbs_rules_t(
                                    read_paths: readPaths.baseAddress, read_count: readPaths.count,
                                    library_paths: nil, library_count: 0,
                                    needed_paths: neededPaths.baseAddress, needed_count: neededPaths.count,
                                    write_paths: writePaths.baseAddress, write_count: writePaths.count,
                                    execute_paths: executePaths.baseAddress, execute_count: executePaths.count,
                                    connect_ports: connectPorts.baseAddress, connect_count: connectPorts.count,
                                    bind_ports: bindPorts.baseAddress, bind_count: bindPorts.count,
                                    network_all: grant.network == .all ? 1 : 0, landlock_abi: Int32(landlockABI),
                                    seccomp: seccomp ? 1 : 0, filter: nil, filter_size: 0, report_fd: -1, last_kept_fd: -1,
                                    open_files: grant.openFiles ?? SandboxGrant.defaultOpenFiles,
                                    memory_bytes: grant.memoryBytes ?? 0, cpu_seconds: grant.cpuSeconds ?? 0,
                                    threads: threadLimit ?? 0, threads_required: requiresThreadLimit ? 1 : 0)
                                return pointers[4].withUnsafeBufferPointer { libraryPaths in
                                    rules.library_paths = libraryPaths.baseAddress
                                    rules.library_count = libraryPaths.count
                                    return body(&rules)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A C message buffer as text.
    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The seccomp filters a host compiled, by what they depend on: compiled once, used by every
/// worker (compiling one costs a worker's start-up more than the rest of its sandbox).
final class CompiledFilters: Sendable {
    /// The process's filters.
    static let shared = CompiledFilters()
    private let filters = Mutex<[String: [UInt8]]>([:])

    /// The filter of `sandbox`, compiled on first use.
    func filter(for sandbox: WorkerSandbox) throws(SandboxFailure) -> [UInt8] {
        let grant = sandbox.grant
        let network = switch grant.network {
        case .none: "none"
        case .all: "all"
        case .ports(let connect, let bind): connect.isEmpty && bind.isEmpty ? "none" : "tcp"
        }
        let key = "\(grant.execute.isEmpty) \(network) \(sandbox.landlockABI >= PBS_LANDLOCK_TCP)"
        if let known = filters.withLock({ $0[key] }) { return known }
        let compiled = try sandbox.compileFilter()
        filters.withLock { $0[key] = compiled }
        return compiled
    }
}

/// Why a worker could not confine itself.
public struct SandboxFailure: Error, Sendable, CustomStringConvertible {
    /// The step and its cause ("cannot create the Landlock ruleset (ABI 7): Function not implemented").
    public let description: String
}
