import Foundation
import Testing
@testable import Plugboard

/// `inspect` on libraries whose `plugboard_entry` is not a function: a clean exit 1
/// with the stage and the cause, in both formats, and no code of the library run.
@Suite struct EntrySymbolEndToEndTests {
    @Test(arguments: [BadPlugin.dataSymbolEntry, .missingEntry, .entryOutsideCode])
    func inspectExplainsAndExits1(_ bad: BadPlugin) throws {
        let folder = try CorpusFolder(bad)
        defer { folder.root.remove() }
        let expected = folder.expectation

        let human = try CLI.run(["inspect", expected.path])
        #expect(human.status == 1, "exit \(human.status)\n\(human.output)\n\(human.errorOutput)")
        #expect(human.output.contains("Stage         entry\n"), "\(human.output)")
        for word in expected.keywords {
            #expect(human.output.contains(word), "output lacks \(String(reflecting: word)):\n\(human.output)")
        }
        let json = try CLI.run(["inspect", expected.path, "--json"])
        #expect(json.status == 1, "exit \(json.status)\n\(json.output)\n\(json.errorOutput)")
        let failure = try #require(jsonObject(json.output)?.object("library")?.object("failure"), "\(json.output)")
        #expect(failure.string("stage") == "entry" && expected.keywords.allSatisfy { failure.string("message")?.contains($0) == true },
                "\(failure)")
    }

    /// The check reads what the loader reads (program headers, dynamic section), not the
    /// section headers, which the loader ignores: a library stripped of them still loads.
    @Test func aLibraryWithoutSectionHeadersLoads() throws {
        let folder = try CorpusFolder(.missingEntry)
        defer { folder.root.remove() }
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder.plugins + "/" + GoodPlugins.firstFile)))
        for index in 40..<48 { bytes[index] = 0 }  // e_shoff
        for index in 58..<64 { bytes[index] = 0 }  // e_shentsize, e_shnum, e_shstrndx
        let stripped = folder.root.file("stripped.so")
        try Data(bytes).write(to: URL(fileURLWithPath: stripped))
        let result = try CLI.run(["inspect", stripped])
        #expect(result.status == 0 && result.output.contains("Status        loaded"), "exit \(result.status)\n\(result.output)")
    }

    /// The entry is found through whichever hash table the linker wrote: GNU, SysV (DT_HASH) or both.
    @Test(arguments: ["gnu", "sysv", "both"])
    func theEntryIsFoundThroughEveryHashStyle(_ style: String) throws {
        let scratch = try TemporaryDirectory("plugboard-hash-style")
        defer { scratch.remove() }
        let library = try PluginCompiler.compile(
            TestPaths.fixtures + "/configurable_plugin.c", to: scratch.file("\(style).so"),
            flags: GoodPlugins.definitions(id: "com.hash.\(style)").map { "-D" + $0 } + ["-Wl,--hash-style=\(style)"])
        let host = PluginHost()
        defer { host.shutdown() }
        let report = host.loadLibrary(at: library)
        #expect(report.status == .loaded, "\(String(describing: report.failure))")
        #expect(report.plugins.map(\.descriptor.id.rawValue) == ["com.hash.\(style)"])
    }
}
