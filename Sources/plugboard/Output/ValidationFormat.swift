import Plugboard
import PlugboardValidation

/// The human report of `plugboard validate`: one line per check, in aligned columns.
enum ValidationFormat {
    /// `name` padded to the longest check name and two spaces (the check column, and `--list`).
    static func padded(_ name: String) -> String {
        name.padding(toLength: (ValidationCheck.all.map(\.name.count).max() ?? 0) + 2, withPad: " ", startingAt: 0)
    }

    /// One line per result, `  pass    loads       12 ms  reason`: the status, the check, the duration
    /// right-aligned to the widest of `results` (so the reasons start in one column; none for a
    /// skipped check, which ran nothing), the reason.
    static func lines(_ results: [CheckResult]) -> [String] {
        let durations = results.map { $0.status == .skipped ? "" : "\(Int($0.milliseconds.rounded())) ms" }
        let width = durations.map(\.count).max() ?? 0
        return zip(results, durations).map { result, duration in
            "  " + result.status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0) + padded(result.check)
                + String(repeating: " ", count: width - duration.count) + duration + "  " + ControlCharacters.escaped(result.reason)
        }
    }
}
