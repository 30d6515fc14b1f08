import Foundation
import Glibc
import Testing
@testable import Plugboard

/// The trust rule (like OpenSSH's StrictModes): a plugin file or directory that
/// another user could change is refused before any of its code runs, with the
/// fix; `--allow-insecure` loads it and the report says so. The good plugins
/// beside it load either way.
@Suite struct TrustRuleTests {
    /// A folder with the two good plugins around `m_insecure.so`, made insecure by `spoil`.
    private func folder(_ spoil: (String) throws -> Void) throws -> (Workspace, insecure: String) {
        let workspace = try Workspace("trust")
        do {
            try GoodPlugins.build(in: workspace.plugins)
            let insecure = try workspace.plugin("m_insecure.so", GoodPlugins.definitions(id: "com.trust.insecure"))
            try spoil(insecure)
            return (workspace, insecure)
        } catch {
            workspace.remove()
            throw error
        }
    }

    private func chmod(_ path: String, _ mode: mode_t) throws {
        guard Glibc.chmod(path, mode) == 0 else { throw TestFailure("chmod \(path): \(String(cString: strerror(errno)))") }
    }

    private func chown(_ path: String, _ user: uid_t) throws {
        guard Glibc.chown(path, user, gid_t(user)) == 0 else { throw TestFailure("chown \(path): \(String(cString: strerror(errno)))") }
    }

    /// Loads the folder in process and checks the insecure file's report and the good plugins.
    private func expectRefused(_ workspace: Workspace, _ insecure: String, _ words: [String]) throws {
        let logs = LogCollector()
        let host = LoadingCorpusTests.makeHost(logs)
        defer { host.shutdown() }
        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [workspace.plugins]))
        try #require(reports.count == 3, "\(reports.map(\.path))")
        let failure = try #require(reports[1].failure, "\(reports[1])")
        #expect(reports[1].path == insecure && reports[1].status == .failed && failure.stage == .trust, "\(failure)")
        for word in words + ["so another user could change the code it runs", "or pass --allow-insecure"] {
            #expect(failure.message.contains(word), "message lacks \(String(reflecting: word)): \(failure.message)")
        }
        #expect(logs.libraryMessages(source: insecure).isEmpty && logs.messages(plugin: "com.trust.insecure").isEmpty,
                "code of the refused library ran: \(logs.all)")
        #expect(host.plugins.map(\.descriptor.id.rawValue) == GoodPlugins.ids.sorted())
    }

    @Test func groupWritableFileIsRefused() throws {
        let (workspace, insecure) = try folder { try chmod($0, 0o775) }
        defer { workspace.remove() }
        try expectRefused(workspace, insecure, ["the plugin file is writable by group (mode 0775)", "fix it with chmod go-w '\(insecure)'"])
    }

    @Test func fileWritableByOthersThroughASymlinkIsRefused() throws {
        let workspace = try Workspace("trust-symlink")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let real = try workspace.plugin("real.so", GoodPlugins.definitions(id: "com.trust.insecure"), in: workspace.root.path)
        try chmod(real, 0o757)
        let link = workspace.plugins + "/m_insecure.so"
        #expect(symlink(real, link) == 0)
        try expectRefused(workspace, link, ["the plugin file is writable by others (mode 0757)", "chmod go-w '\(link)'"])
    }

    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func fileOwnedByAnotherUserIsRefused() throws {
        let (workspace, insecure) = try folder { try chown($0, 65534) }
        defer { workspace.remove() }
        try expectRefused(workspace, insecure, ["the plugin file is owned by uid 65534, neither root nor the current user (uid 0)",
                                                "fix it with chown 0 '\(insecure)'"])
    }

    @Test func directoryWritableByOthersIsRefusedWithItsFiles() throws {
        let workspace = try Workspace("trust-directory")
        defer { workspace.remove() }
        let open = workspace.root.file("open")
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        try workspace.plugin("hidden.so", GoodPlugins.definitions(id: "com.trust.hidden"), in: open)
        try chmod(open, 0o757)
        try GoodPlugins.build(in: workspace.plugins)

        let host = PluginHost()
        defer { host.shutdown() }
        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [open, workspace.plugins]))
        try #require(reports.map(\.path) == [open, workspace.plugins + "/" + GoodPlugins.firstFile,
                                             workspace.plugins + "/" + GoodPlugins.lastFile], "\(reports.map(\.path))")
        let failure = try #require(reports[0].failure)
        #expect(failure.stage == .trust && failure.message.contains("the plugin directory is writable by others (mode 0757)")
                && failure.message.contains("chmod go-w '\(open)'"), "\(failure)")
        #expect(host.plugins.map(\.descriptor.id.rawValue) == GoodPlugins.ids.sorted())
    }

    /// A library named on its own has its folder checked as a scanned folder is: one that others
    /// may write is refused (they could put another file in its place between its check and its
    /// load), by the library API and by `inspect`; a sticky one, as `/tmp` is, passes.
    @Test func namedFileInAFolderOthersMayWriteIsRefused() throws {
        let workspace = try Workspace("trust-named")
        defer { workspace.remove() }
        let open = workspace.root.file("open"), sticky = workspace.root.file("sticky")
        for folder in [open, sticky] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false) }
        let refused = try workspace.plugin("refused.so", GoodPlugins.definitions(id: "com.trust.named"), in: open)
        let shared = try workspace.plugin("shared.so", GoodPlugins.definitions(id: "com.trust.shared"), in: sticky)
        try chmod(open, 0o777)
        try chmod(sticky, 0o1777)
        // The real folder is named, as for the file: the temporary folder's path may have a double slash.
        let resolved = try #require(realpath(open, nil))
        defer { free(resolved) }
        let real = String(cString: resolved)
        let problem = "the folder '\(real)' of the plugin file is writable by group and others (mode 0777)"

        let host = PluginHost()
        defer { host.shutdown() }
        let report = host.loadLibrary(at: refused)
        let failure = try #require(report.failure, "\(report)")
        #expect(failure.stage == .trust && failure.message.contains(problem) && failure.message.contains("chmod go-w '\(real)'"),
                "\(failure)")
        #expect(host.loadLibrary(at: shared).status == .loaded)
        let allowed = host.loadLibrary(at: refused, trust: .allowInsecure)
        #expect(allowed.status == .loaded && allowed.warnings == ["loaded although \(problem) (--allow-insecure)"], "\(allowed)")

        // A link to a trusted file, in a folder others may write: they could point it elsewhere.
        let link = open + "/link.so"
        #expect(symlink(shared, link) == 0)
        let linked = host.loadLibrary(at: link)
        #expect(linked.failure?.stage == .trust && linked.failure?.message.contains("the folder '\(open)' of the plugin file") == true,
                "\(linked)")

        let inspected = try CLI.run(["inspect", refused])
        #expect(inspected.status == 1 && inspected.output.contains("Stage         trust") && inspected.output.contains(problem),
                "exit \(inspected.status)\n\(inspected.output)")
        let inspectedShared = try CLI.run(["inspect", shared])
        #expect(inspectedShared.status == 0, "exit \(inspectedShared.status)\n\(inspectedShared.output)")
    }

    /// A file that failed is tried afresh when asked again: once fixed, it loads (it was reported
    /// as skipped, the same file as itself).
    @Test func aRefusedFileLoadsOnceFixed() throws {
        let (workspace, insecure) = try folder { try chmod($0, 0o777) }
        defer { workspace.remove() }
        let host = PluginHost()
        defer { host.shutdown() }
        #expect(host.loadLibrary(at: insecure).failure?.stage == .trust)
        try chmod(insecure, 0o755)
        let fixed = host.loadLibrary(at: insecure)
        #expect(fixed.status == .loaded, "\(fixed)")
        #expect(host.plugins.map(\.descriptor.id.rawValue) == ["com.trust.insecure"])
    }

    @Test func allowInsecureLoadsAndSaysSo() throws {
        let (workspace, insecure) = try folder { try chmod($0, 0o666) }
        defer { workspace.remove() }
        try chmod(workspace.plugins, 0o775)
        let host = PluginHost()
        defer { host.shutdown() }
        let reports = host.loadPlugins(from: PluginSearchPath(explicit: [workspace.plugins]), trust: .allowInsecure)
        try #require(reports.count == 3)
        #expect(reports.allSatisfy { $0.status == .loaded }, "\(reports)")
        let directoryWarning = "loaded although the plugin directory is writable by group (mode 0775) (--allow-insecure)"
        #expect(reports[1].path == insecure && reports[1].warnings
                    == [directoryWarning, "loaded although the plugin file is writable by group and others (mode 0666) (--allow-insecure)"],
                "\(reports[1].warnings)")
        #expect(reports[0].warnings == [directoryWarning], "\(reports[0].warnings)")
        #expect(host.plugins.count == 3)
    }

    @Test(arguments: ["run", "list", "inspect"])
    func helpDescribesAllowInsecure(_ command: String) throws {
        let help = try CLI.run([command, "--help"])
        #expect(help.output.collapsingWhitespace.contains(
            "--allow-insecure Load plugin files and directories that are writable by group or others"), "\(help.output)")
    }

    @Test func throughTheBinary() throws {
        let (workspace, insecure) = try folder { try chmod($0, 0o664) }
        defer { workspace.remove() }
        let refusal = "FAILED   \(insecure): trust: the plugin file is writable by group (mode 0664)"

        let list = try CLI.run(["list", "--plugin-dir", workspace.plugins])
        #expect(list.status == 1 && list.output.contains(refusal), "exit \(list.status)\n\(list.output)")
        let inspect = try CLI.run(["inspect", insecure])
        #expect(inspect.status == 1 && inspect.output.contains("Stage         trust"), "exit \(inspect.status)\n\(inspect.output)")
        let run = try CLI.run(["run", "--plugin-dir", workspace.plugins])
        #expect(run.status == 4 && run.output.contains(refusal), "exit \(run.status)\n\(run.output)")
        #expect(CLI.pluginLogs(run.output).filter { $0.hasPrefix(GoodPlugins.firstID) }.count == 3, "\(run.output)")

        let warning = "loaded although the plugin file is writable by group (mode 0664) (--allow-insecure)"
        let allowed = try CLI.run(["run", "--plugin-dir", workspace.plugins, "--allow-insecure"])
        #expect(allowed.status == 0 && allowed.output.contains("           warning: " + warning), "exit \(allowed.status)\n\(allowed.output)")
        #expect(CLI.pluginLogs(allowed.output).contains("com.trust.insecure: will-terminate"), "\(allowed.output)")
        let json = try CLI.run(["list", "--plugin-dir", workspace.plugins, "--allow-insecure", "--json"])
        #expect(json.status == 0, "exit \(json.status)\n\(json.output)")
        #expect(try CLI.libraries(json)[1]["warnings"] as? [String] == [warning], "\(json.output)")
        let inspected = try CLI.run(["inspect", insecure, "--allow-insecure"])
        #expect(inspected.status == 0 && inspected.output.contains("Warning       " + warning), "exit \(inspected.status)\n\(inspected.output)")
    }
}
