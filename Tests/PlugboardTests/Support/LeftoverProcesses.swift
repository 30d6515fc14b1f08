import Foundation
import Glibc

/// Finding processes a test left behind: every `plugboard` a test starts gets a unique mark in
/// its environment, which an unconfined worker (and its children) inherit. A confined worker
/// gets a small environment of its own, which names its host: `PLUGBOARD_WORKER_PARENT=<pid>`
/// (its children inherit that too), so the host's process id finds it.
enum LeftoverProcesses {
    /// A new mark, as an environment entry.
    static func mark() -> [String: String] {
        ["PLUGBOARD_TEST_MARK": "\(getpid())-\(UInt64.random(in: 0...UInt64.max))"]
    }

    /// The processes whose environment holds `mark`, or names `host` as their worker's host.
    static func marked(_ mark: [String: String], host: pid_t? = nil) -> [pid_t] {
        guard let (key, value) = mark.first,
              let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        let needles = [Data("\(key)=\(value)\0".utf8)] + (host.map { [Data("PLUGBOARD_WORKER_PARENT=\($0)\0".utf8)] } ?? [])
        return names.compactMap(pid_t.init).filter { pid in
            guard let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return needles.contains { environment.range(of: $0) != nil }
        }
    }

    /// Whether every process of `mark` (and of `host`'s workers) is gone, waiting up to 5 s (a
    /// worker whose host just died ends on the kernel's signal, a moment later).
    static func noneLeft(_ mark: [String: String], host: pid_t? = nil) -> Bool {
        for _ in 0..<50 {
            if marked(mark, host: host).isEmpty { return true }
            usleep(100_000)
        }
        return marked(mark, host: host).isEmpty
    }
}
