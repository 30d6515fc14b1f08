import Foundation
import Glibc

/// The facts about the machine that a reader needs to weigh the numbers.
struct MachineInfo {
    /// Online processors.
    let processors: Int
    /// `model name` from /proc/cpuinfo.
    let cpuModel: String
    /// The first line of `swift --version`.
    let swiftVersion: String
    /// The first line of the C compiler's `--version`.
    let compilerVersion: String
    /// `gnu_get_libc_version()`.
    let libc: String
    /// The kernel release.
    let kernel: String

    /// Gathers the facts; what cannot be found reads "unknown".
    static func current(compiler: String) -> MachineInfo {
        let cpuinfo = Files.text("/proc/cpuinfo") ?? ""
        let model = cpuinfo.split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        var names = utsname()
        uname(&names)
        let kernel = withUnsafeBytes(of: names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return MachineInfo(
            processors: sysconf(Int32(_SC_NPROCESSORS_ONLN)),
            cpuModel: model,
            swiftVersion: firstLine(of: "swift", ["--version"]),
            compilerVersion: firstLine(of: compiler, ["--version"]),
            libc: libcVersion(),
            kernel: kernel)
    }

    /// The C library's version, from `confstr(_CS_GNU_LIBC_VERSION)` ("glibc 2.36" → "2.36").
    private static func libcVersion() -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 else { return "unknown" }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: " ").last.map(String.init) ?? text
    }

    /// The 1, 5 and 15 minute load averages from /proc/loadavg: other work on
    /// the machine during the run, which the timings cannot hide.
    static func loadAverage() -> String {
        let fields = (Files.text("/proc/loadavg") ?? "").split(separator: " ").prefix(3)
        return fields.count == 3 ? fields.joined(separator: " ") : "unknown"
    }

    /// The first non-empty line `program arguments` prints, or "unknown".
    private static func firstLine(of program: String, _ arguments: [String]) -> String {
        guard let outcome = try? TimedRun(program, arguments, captureOutput: true),
              outcome.termination.succeeded else { return "unknown" }
        return outcome.output.split(separator: "\n").first.map(String.init) ?? "unknown"
    }
}
