@testable import PlugboardValidation
@testable import plugboard
import Testing

/// The human report of `plugboard validate` keeps its columns whatever the durations.
@Suite struct ValidationFormatTests {
    @Test func durationsAreRightAlignedSoReasonsStartInOneColumn() {
        let results = [
            CheckResult(check: "loads", status: .pass, reason: "it loads", milliseconds: 3.2),
            CheckResult(check: "edge-inputs", status: .crashed, reason: "crashed\nforged", milliseconds: 1_234.4),
            CheckResult(check: "load-time", status: .warn, reason: "slow", milliseconds: 97.6),
            CheckResult(check: "functions", status: .skipped, reason: "no plugin takes part", milliseconds: 2.1),
        ]
        let lines = ValidationFormat.lines(results)
        // A skipped check ran nothing: it shows no duration.
        #expect(lines == [
            "  pass    loads                   3 ms  it loads",
            "  crashed edge-inputs          1234 ms  crashed\\nforged",
            "  warn    load-time              98 ms  slow",
            "  skipped functions                     no plugin takes part",
        ], "\(lines.joined(separator: "\n"))")
    }
}
