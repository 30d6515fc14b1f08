import Foundation
import Testing
@testable import PlugboardValidation

/// Each check's limits and sizes appear once, as constants: its description, `--list` and the
/// README's table name them as the check uses them.
@Suite struct ValidationCheckTests {
    /// Each check's name with the texts of the constants its description must show.
    private let constants: [(String, [String])] = [
        ("load-time", [LoadTimeCheck.limit.text]),
        ("edge-inputs", [EdgeInputsCheck.longURLPathSize.bytesText, "\(EdgeInputsCheck.nestingDepth)"]),
        ("remote-notification", [RemoteNotificationCheck.deadline.text, "\(RemoteNotificationCheck.notifications)"]),
        ("service-threads", [ServiceThreadsCheck.afterDeinitWatch.text]),
        ("notifications", [NotificationsCheck.longTextSize.bytesText, "\(NotificationsCheck.nestingDepth)"]),
    ]

    @Test func limitsAndSizesAreNamedInOneWay() {
        #expect([Duration.seconds(2).text, Duration.milliseconds(200).text, Duration.milliseconds(1500).text]
                == ["2 s", "200 ms", "1500 ms"])
        #expect([(1 << 20).bytesText, (60 * 1024).bytesText, 100.bytesText] == ["1 MiB", "60 KiB", "100 bytes"])
    }

    @Test func eachDescriptionShowsItsChecksConstants() throws {
        for (name, texts) in constants {
            let check = try #require(ValidationCheck.all.first { $0.name == name })
            for text in texts {
                #expect(check.description.contains(text), "\(name): \(text) in \(check.description)")
            }
        }
        #expect(LoadTimeCheck.check.description.hasSuffix("takes at most 100 ms."))
    }

    @Test func theReadmeTableListsEveryCheckInOrderWithItsConstants() throws {
        let readme = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = readme.components(separatedBy: "### Check a plugin: `plugboard validate`").dropFirst().first ?? ""
        let rows = section.components(separatedBy: "\n\n").dropFirst(2).first?.split(separator: "\n").dropFirst(2) ?? []
        let names = rows.map { $0.split(separator: "`").dropFirst().first.map(String.init) ?? "" }
        #expect(names == ValidationCheck.all.map(\.name), "\(rows)")
        for (name, texts) in constants {
            let row = rows.first { $0.hasPrefix("| `\(name)` |") } ?? ""
            for text in texts {
                #expect(row.contains(text), "README, \(name): \(text) in \(row)")
            }
        }
    }
}
