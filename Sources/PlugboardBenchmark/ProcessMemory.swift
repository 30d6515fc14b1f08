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

    /// The memory of `root` and its descendants (found through the parent of every
    /// process in `/proc/PID/stat`), at the moment of the call.
    static func tree(of root: pid_t) -> ProcessMemory {
        let children = Dictionary(grouping: parents(), by: \.parent).mapValues { $0.map(\.pid) }
        var pending = [root], seen: [pid_t] = []
        while let pid = pending.popLast() {
            seen.append(pid)
            pending += children[pid] ?? []
        }
        return ProcessMemory(processes: seen.count,
                             rss: seen.reduce(0) { $0 + kibibytes("VmRSS:", in: "/proc/\($1)/status") },
                             pss: seen.reduce(0) { $0 + kibibytes("Pss:", in: "/proc/\($1)/smaps_rollup") })
    }

    /// Every process of the system with its parent, from `/proc/PID/stat` (the
    /// fourth field, after the command name in parentheses, which may hold spaces).
    private static func parents() -> [(pid: pid_t, parent: pid_t)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = pid_t(entry), let stat = Files.text("/proc/\(entry)/stat"),
                  let afterName = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: afterName)...].split(separator: " ")
            guard fields.count > 1, let parent = pid_t(fields[1]) else { return nil }
            return (pid, parent)
        }
    }

    /// The number of KiB on the line starting with `field` in `path`, 0 when absent.
    private static func kibibytes(_ field: String, in path: String) -> UInt64 {
        guard let line = Files.text(path)?.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return 0 }
        return line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { UInt64($0) } ?? 0
    }
}
