import Foundation
import Glibc
import Testing
import PlugboardFiles
@testable import Plugboard

/// A plugin id claimed by two libraries belongs to neither: a squatter whose
/// file name sorts first cannot take a well-known id from the genuine library.
/// Both are refused and named, a library left without plugins is released
/// (its `deinit` runs), and `run` exits 4 after the other plugins ran.
@Suite struct ContestedIDTests {
    static let contested = "com.example.notification-logger"

    /// `a_squatter.so` and `m_genuine.so` both claim ``contested``; `z_good.so` is a bystander.
    private static func workspace() throws -> (Workspace, squatter: String, genuine: String) {
        let workspace = try Workspace("contested")
        do {
            let squatter = try workspace.plugin("a_squatter.so", GoodPlugins.definitions(id: contested))
            let genuine = try workspace.plugin("m_genuine.so", GoodPlugins.definitions(id: contested))
            try workspace.plugin(GoodPlugins.lastFile, GoodPlugins.definitions(id: GoodPlugins.lastID))
            return (workspace, squatter, genuine)
        } catch {
            workspace.remove()
            throw error
        }
    }

    @Test func bothLibrariesAreRefusedAndNamed() throws {
        let (workspace, squatter, genuine) = try Self.workspace()
        defer { workspace.remove() }
        let third = try workspace.plugin("n_third.so", GoodPlugins.definitions(id: Self.contested))
        let logs = LogCollector()
        let host = LoadingCorpusTests.makeHost(logs)
        defer { host.shutdown() }

        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [workspace.plugins]))
        try #require(reports.map(\.path) == [squatter, genuine, third, workspace.plugins + "/" + GoodPlugins.lastFile])
        let claim = "plugin id '\(Self.contested)' is claimed by two libraries, \(squatter) and \(genuine): refused for both"
        for report in reports.prefix(3) {
            #expect(report.status == .failed && report.plugins.isEmpty, "\(report)")
            #expect(report.failure?.stage == .register && report.failure?.message.contains(claim) == true, "\(String(describing: report.failure))")
            #expect(report.refused.map(\.failure.message) == [claim], "\(report.refused)")
        }
        #expect(reports[3].status == .loaded)
        #expect(host.plugins.map(\.descriptor.id.rawValue) == [GoodPlugins.lastID])
        // The squatter registered first and lost its only plugin: it was released, so its deinit ran.
        #expect(logs.libraryMessages(source: squatter).contains("deinit"), "\(logs.libraryMessages(source: squatter))")
        #expect(host.willFinishLaunching().calls.map(\.plugin.rawValue) == [GoodPlugins.lastID])
    }

    @Test func aBuiltInIdIsRefusedForTheLibraryOnly() throws {
        let workspace = try Workspace("contested-builtin")
        defer { workspace.remove() }
        let squatter = try workspace.plugin("squatter.so", GoodPlugins.definitions(id: FilesPlugin.id.rawValue))
        let container = try Container(rootPath: workspace.root.file("container"))
        let host = PluginHost()
        defer { host.shutdown() }
        try host.register(FilesPlugin(facade: FileFacade(container: container)))

        let report = host.loadLibrary(at: squatter)
        #expect(report.status == .failed, "\(report)")
        #expect(report.refused.first?.failure.message.contains("already registered by built-in") == true, "\(report.refused)")
        #expect(host.plugins.map(\.descriptor.id) == [FilesPlugin.id])
    }

    @Test func runExits4AfterTheOtherPluginsRan() throws {
        let (workspace, squatter, genuine) = try Self.workspace()
        defer { workspace.remove() }
        let result = try CLI.run(["run", "--plugin-dir", workspace.plugins])
        #expect(result.status == 4, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        for path in [squatter, genuine] {
            #expect(result.output.contains("FAILED   \(path): register: no plugin of the library could be registered: plugin id '\(Self.contested)' is claimed by two libraries, \(squatter) and \(genuine)"),
                    "\(result.output)")
        }
        #expect(CLI.pluginLogs(result.output).filter { $0.hasPrefix(GoodPlugins.lastID) }
                    == ["will-finish-launching", "did-finish-launching", "will-terminate"].map { "\(GoodPlugins.lastID): \($0)" },
                "\(result.output)")
        #expect(!CLI.pluginLogs(result.output).contains { $0.hasPrefix(Self.contested + ": will-finish-launching") }, "\(result.output)")
        let list = try CLI.run(["list", "--plugin-dir", workspace.plugins, "--json"])
        #expect(list.status == 1)
        #expect(try CLI.libraries(list).map { $0.string("status") } == ["failed", "failed", "loaded"], "\(list.output)")
    }
}
