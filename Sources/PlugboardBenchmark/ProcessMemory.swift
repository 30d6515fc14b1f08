import Foundation

/// The resident memory of a process and its descendants, read from `/proc`.
/// Shared pages (the Swift runtime, libc, the plugin images) count once per
/// process that maps them in `rss`, and divided among those processes in `pss`.
struct ProcessMemory {
    /// Processes summed: the root and every descendant found.
    let processes: Int
    /// Sum of `VmRSS` (`/proc/PID/status`), in KiB.
    let rss: UInt64
    /// Sum of `Pss` (`/proc/PID/smaps_rollup`), in KiB.
    let pss: UInt64

    /// The memory of `root` and its descendants (children of every thread, recursively,
    /// through `/proc/PID/task/TID/children`), at the moment of the call.
    static func tree(of root: pid_t) -> ProcessMemory {
        var pending = [root], seen: [pid_t] = []
        while let pid = pending.popLast() {
            seen.append(pid)
            pending += children(of: pid)
        }
        return ProcessMemory(processes: seen.count,
                             rss: seen.reduce(0) { $0 + kibibytes("VmRSS:", in: "/proc/\($1)/status") },
                             pss: seen.reduce(0) { $0 + kibibytes("Pss:", in: "/proc/\($1)/smaps_rollup") })
    }

    /// The children of every thread of `pid`.
    private static func children(of pid: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            (Files.text("/proc/\(pid)/task/\(task)/children") ?? "").split(separator: " ").compactMap { pid_t($0) }
        }
    }

    /// The number of KiB on the line starting with `field` in `path`, 0 when absent.
    private static func kibibytes(_ field: String, in path: String) -> UInt64 {
        guard let line = Files.text(path)?.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return 0 }
        return line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { UInt64($0) } ?? 0
    }
}
