import Foundation
import Glibc

/// Finding processes a test left behind: every `plugboard` a test starts gets a
/// unique mark in its environment, which its workers (and their children) inherit.
enum LeftoverProcesses {
    /// A new mark, as an environment entry.
    static func mark() -> [String: String] {
        ["PLUGBOARD_TEST_MARK": "\(getpid())-\(UInt64.random(in: 0...UInt64.max))"]
    }

    /// The processes whose environment holds `mark`.
    static func marked(_ mark: [String: String]) -> [pid_t] {
        guard let (key, value) = mark.first,
              let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        let needle = Data("\(key)=\(value)\0".utf8)
        return names.compactMap(pid_t.init).filter { pid in
            (FileManager.default.contents(atPath: "/proc/\(pid)/environ")?.range(of: needle)) != nil
        }
    }

    /// Whether every process of `mark` is gone, waiting up to 5 s (a worker whose host
    /// just died ends on the kernel's signal, a moment later).
    static func noneLeft(_ mark: [String: String]) -> Bool {
        for _ in 0..<50 {
            if marked(mark).isEmpty { return true }
            usleep(100_000)
        }
        return marked(mark).isEmpty
    }
}
