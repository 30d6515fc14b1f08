import Foundation
import Testing
@testable import Plugboard

/// The header is the documentation: every function pointer states its calling
/// rule with a tag, and the Swift host agrees with the header on versions.
@Suite struct HeaderContractTests {
    private static let tags = ["[dispatch-thread]", "[thread-safe]", "[register]"]

    private func headers() throws -> [String] {
        let root = TestPaths.include
        let enumerator = FileManager.default.enumerator(atPath: root)
        var result: [String] = []
        while let next = enumerator?.nextObject() as? String {
            if next.hasSuffix(".h") { result.append(root + "/" + next) }
        }
        return result
    }

    @Test func everyFunctionPointerCarriesAThreadTag() throws {
        var checked = 0
        for header in try headers() {
            let lines = try String(contentsOfFile: header, encoding: .utf8).components(separatedBy: "\n")
            for (index, line) in lines.enumerated() where line.contains("(*") && !line.contains("typedef") {
                // The doc comment is the block of comment lines right above the declaration.
                var comment: [String] = []
                var cursor = index - 1
                while cursor >= 0 {
                    let text = lines[cursor].trimmingCharacters(in: .whitespaces)
                    guard text.hasPrefix("/*") || text.hasPrefix("*") else { break }
                    comment.append(text)
                    cursor -= 1
                }
                let tagged = Self.tags.contains { tag in comment.contains { $0.contains(tag) } }
                #expect(tagged, "\(URL(fileURLWithPath: header).lastPathComponent):\(index + 1) has no thread tag: \(line)")
                checked += 1
            }
        }
        #expect(checked >= 30, "found \(checked) function pointers")
    }

    @Test func theHostImplementsTheHeadersVersion() throws {
        let version = try String(contentsOfFile: TestPaths.include + "/plugboard/version.h", encoding: .utf8)
        #expect(version.contains("#define PB_ABI_VERSION_MAJOR \(ABIVersion.host.major)u"))
        #expect(version.contains("#define PB_ABI_VERSION_MINOR \(ABIVersion.host.minor)u"))
        #expect(version.contains("  1.\(ABIVersion.host.minor) "), "the history lists the current minor")
    }
}
