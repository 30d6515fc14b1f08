import CSandbox
import Foundation
import Glibc

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
        guard let sandbox = try? JSONDecoder().decode(WorkerSandbox.self, from: Data(text.utf8)) else {
            throw SandboxFailure(description: "the host's \(variable) does not decode")
        }
        return sandbox
    }

    /// Confines this process for good: call it while the process has one thread, before the
    /// library is opened. On error the process may be partly confined and must exit.
    func apply(environment: [String: String]) throws(SandboxFailure) {
        let read = Self.systemReadPaths + Self.runtimeFiles() + [library]
            + LibraryDependencies.files(neededBy: library, environment: environment) + grant.read
        let write = Self.systemWritePaths + grant.write
        // Executing a program also executes its interpreter (the dynamic loader, or a script's).
        let execute = grant.execute + grant.execute.compactMap(LibraryDependencies.interpreter(of:))
        var connect: [UInt16] = [], bind: [UInt16] = []
        if case .ports(let connecting, let binding) = grant.network { (connect, bind) = (connecting, binding) }
        let openFiles = grant.openFiles ?? SandboxGrant.defaultOpenFiles
        var message = [CChar](repeating: 0, count: 512)
        let status = withCStrings(read) { readPaths in
            withCStrings(write) { writePaths in
                withCStrings(execute) { executePaths in
                    connect.withUnsafeBufferPointer { connectPorts in
                        bind.withUnsafeBufferPointer { bindPorts in
                            var rules = pbs_rules_t(
                                read_paths: readPaths.baseAddress, read_count: readPaths.count,
                                write_paths: writePaths.baseAddress, write_count: writePaths.count,
                                execute_paths: executePaths.baseAddress, execute_count: executePaths.count,
                                connect_ports: connectPorts.baseAddress, connect_count: connectPorts.count,
                                bind_ports: bindPorts.baseAddress, bind_count: bindPorts.count,
                                network_all: grant.network == .all ? 1 : 0, landlock_abi: Int32(landlockABI),
                                seccomp: seccomp ? 1 : 0, report_fd: seccomp ? Self.reportDescriptor : -1,
                                open_files: openFiles, memory_bytes: grant.memoryBytes ?? 0, cpu_seconds: grant.cpuSeconds ?? 0)
                            return pbs_apply(&rules, &message, message.count)
                        }
                    }
                }
            }
        }
        guard status == 0 else {
            throw SandboxFailure(description: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// The files this worker itself runs on (its executable and the libraries mapped now), and the
    /// Swift runtime's folder whole (the runtime may open more of its libraries later).
    private static func runtimeFiles() -> [String] {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return [] }
        var files: [String] = []
        var seen = Set<String>()
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            guard !path.hasSuffix(" (deleted)"), seen.insert(path).inserted else { continue }
            if (path as NSString).lastPathComponent.hasPrefix("libswiftCore.so") {
                files.append((path as NSString).deletingLastPathComponent)
            } else {
                files.append(path)
            }
        }
        return files
    }

    /// Calls `body` with `strings` as an array of C strings (valid during the call).
    private func withCStrings<Result>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> Result) -> Result {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer(body)
    }
}

/// Why a worker could not confine itself.
public struct SandboxFailure: Error, Sendable, CustomStringConvertible {
    /// The step and its cause ("cannot create the Landlock ruleset (ABI 7): Function not implemented").
    public let description: String
}
