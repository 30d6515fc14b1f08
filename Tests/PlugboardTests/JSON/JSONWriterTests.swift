import Foundation
import Testing
@testable import Plugboard

/// ``JSONWriter`` writes what `JSONEncoder` writes (sorted keys, pretty, slashes unescaped),
/// byte for byte: on every kind of value, and on load reports of every shape.
@Suite struct JSONWriterTests {
    /// `JSONEncoder` as every `--json` output uses it.
    static func encoded(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    struct Sample: Encodable {
        struct Inner: Encodable {
            let empty: [String]
            let flag: Bool
            let list: [Int]
            let none: [String: Int]
        }
        let Upper: Int
        let a_b: String?
        let aB: String?
        let inner: Inner
        let inners: [Inner]
        let text: String
    }

    @Test func valuesAndEscapesAreWrittenAsTheEncoderWritesThem() throws {
        let every = (0..<0x80).map { Character(Unicode.Scalar(UInt8($0))) }
        let text = String(every) + "/é 🎛️ \u{2028}"
        let inner = Sample.Inner(empty: [], flag: false, list: [0, 1, -2, 10, .max, .min], none: [:])
        let sample = Sample(Upper: -7, a_b: nil, aB: "x", inner: inner, inners: [inner, inner], text: text)
        func write(_ inner: Sample.Inner, _ writer: inout JSONWriter) {
            writer.object { writer in
                writer.key("empty")
                writer.array(inner.empty)
                writer.key("flag")
                writer.bool(inner.flag)
                writer.key("list")
                writer.array(inner.list) { $0.number($1) }
                writer.key("none")
                writer.object { _ in }
            }
        }
        var writer = JSONWriter()
        writer.object { writer in
            writer.key("Upper")
            writer.number(sample.Upper)
            writer.member("aB", ifPresent: sample.aB)
            writer.member("a_b", ifPresent: sample.a_b)
            writer.key("inner")
            write(sample.inner, &writer)
            writer.key("inners")
            writer.array(sample.inners) { write($1, &$0) }
            writer.member("text", sample.text)
        }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == (try Self.encoded(sample)))
        var empty = JSONWriter()
        empty.array([String]())
        #expect(String(decoding: empty.bytes, as: UTF8.self) == (try Self.encoded([String]())))
    }

    /// A report and the `cached` flag a listing adds, as `plugboard list --json` encoded them through `Codable`.
    struct Listed: Encodable {
        let report: LoadReport
        let cached: Bool
        private enum CodingKeys: String, CodingKey { case cached }

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(cached, forKey: .cached)
        }
    }

    @Test func loadReportsOfEveryShapeAreWrittenAsTheEncoderWritesThem() throws {
        let fixture = try FunctionsFixture()
        defer { fixture.remove() }
        var loaded = fixture.report
        try #require(!loaded.plugins.isEmpty && loaded.plugins.contains { !$0.refusedFunctions.isEmpty } && loaded.abi != nil)
        loaded.warnings = ["the file is writable by others\n\u{1b}[31m \"quoted\" \\ /path"]
        loaded.sandbox = SandboxSummary(mode: nil, layers: ["landlock-7", "seccomp"], grants: ["read /data"])
        var refused = LoadReport.failed("/plugins/libx.so", LoadFailure(.register, "refused", systemError: "EPERM"))
        refused.refused = [PluginRefusal(id: "", failure: LoadFailure(.register, "the id is empty"))]
        refused.sandbox = SandboxSummary(mode: "off", layers: [], grants: [])
        let reports: [LoadReport] = [
            loaded, refused,
            LoadReport.failed("/plugins/liby.so", LoadFailure(.open, "dlopen failed: \u{7f}\u{0}")),
            LoadReport.skipped("/plugins/link.so", sameFileAs: "/plugins/libz.so"),
        ]
        for report in reports {
            for cached in [false, true] {
                var writer = JSONWriter()
                report.writeJSON(into: &writer, cached: cached)
                #expect(String(decoding: writer.bytes, as: UTF8.self) == (try Self.encoded(Listed(report: report, cached: cached))),
                        "\(report.path)")
            }
            var writer = JSONWriter()
            report.writeJSON(into: &writer)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == (try Self.encoded(report)), "\(report.path)")
        }
    }
}
