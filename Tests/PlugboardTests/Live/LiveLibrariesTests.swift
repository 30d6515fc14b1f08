import Foundation
import Glibc
import PlugboardFiles
import Synchronization
import Testing
@testable import Plugboard

/// Live plugins in the embedding API: a host joins, reloads and unloads libraries by path, applies a
/// folder's changes when told, and a ``PluginFolderWatcher`` says when a folder changed.
@Suite struct LiveLibrariesTests {
    /// A folder with the live counter built as `liblive.so` version `version`, a container, and a host
    /// over them whose plugin log lines are collected.
    struct Setting {
        let directory: TemporaryDirectory
        let plugins: String
        let host: PluginHost
        let logs = LogCollector()
        let store: SavedStateStore

        init(isolation: PluginIsolation) throws {
            directory = try TemporaryDirectory("plugboard-live")
            plugins = directory.file("plugins")
            try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: false)
            store = SavedStateStore(facade: FileFacade(container: try Container(rootPath: directory.file("container"))))
            let logs = logs
            host = PluginHost(isolation: isolation) { record in
                logs.append(source: record.source, plugin: record.plugin, level: record.level.rawValue, message: record.message)
            }
        }

        /// Builds the counter as `version` into the folder as `name` (written then renamed into place).
        @discardableResult
        func drop(version: String, as name: String = "liblive.so", _ defines: [String] = []) throws -> String {
            try drop("live_counter.c", as: name, ["LIVE_VERSION=\"\(version)\""] + defines)
        }

        /// Builds the fixture `source` with `defines` into the folder as `name` (written then renamed into place).
        @discardableResult
        func drop(_ source: String, as name: String, _ defines: [String]) throws -> String {
            let built = try PluginCompiler.compile(TestPaths.fixtures + "/" + source, to: directory.file("next.so"),
                                                   flags: defines.map { "-D" + $0 })
            let target = plugins + "/" + name
            #expect(rename(built, target) == 0)
            return target
        }

        var searchPath: PluginSearchPath { PluginSearchPath(explicit: [plugins]) }

        func counts() -> [String] { logs.messages(plugin: "com.example.live").filter { $0.hasPrefix("count") } }

        func remove() {
            host.shutdown()
            directory.remove()
        }
    }

    @Test func aJoinBeforeLaunchGetsNoCatchUpAndOneAfterLaunchGetsTheLaunchAndTheState() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        let early = setting.host.join(libraryAt: try setting.drop(version: "1.0", as: "libearly.so", [#"LIVE_ID="com.example.early""#]))
        #expect(early.kind == .joined && early.catchUp.isEmpty, "\(early.sentence)")
        setting.host.willFinishLaunching(options: #"{"k":1}"#)
        setting.host.didFinishLaunching(options: #"{"k":2}"#)
        setting.host.didEnterBackground()
        let late = setting.host.join(libraryAt: try setting.drop(version: "1.0"))
        #expect(late.kind == .joined, "\(late.sentence)")
        #expect(late.catchUp.map(\.event.name) == ["will-finish-launching", "did-finish-launching", "did-enter-background"])
        #expect(setting.logs.messages(plugin: "com.example.live") == ["will-finish-launching", "did-finish-launching", "did-enter-background"])
        setting.host.willTerminate()
        let after = setting.host.join(libraryAt: try setting.drop(version: "1.0", as: "libafter.so", [#"LIVE_ID="com.example.after""#]))
        #expect(after.kind == .joined && after.catchUp.isEmpty, "after will-terminate nothing is caught up")
    }

    /// A version that observes a notification in its `deinit`, as it is replaced: the observation
    /// ends with its worker. A post of that name then goes to no ended worker, whose failure would
    /// withdraw the library's plugins, and the new version keeps serving.
    @Test func anObservationMadeInDeinitEndsWithTheReplacedWorker() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        let path = try setting.drop(version: "1.0", [#"LIVE_OBSERVE_IN_DEINIT="com.example.late""#])
        #expect(setting.host.loadPlugins(from: setting.searchPath).map(\.status) == [.loaded])
        try setting.drop(version: "2.0")
        let change = setting.host.reload(libraryAt: path)
        #expect(change.kind == .reloaded, "\(change.sentence)")
        try setting.host.post("com.example.late")
        _ = setting.host.deliverNotifications()
        setting.host.open(url: "a")
        #expect(setting.counts() == ["count 1 (2.0)"], "\(setting.logs.messages(plugin: nil))")
        #expect(setting.host.plugins.map(\.descriptor.id.rawValue) == ["com.example.live"])
    }

    /// An id two libraries claimed at load belongs to neither from then on: a new version of one of
    /// them that still registers it is refused that id, and its other plugin serves.
    @Test func aReloadIsRefusedAnIdTwoLibrariesClaimed() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        let path = try setting.drop(version: "1.0", [#"LIVE_SECOND_ID="com.example.aaa""#])
        try setting.drop(version: "1.0", as: "libother.so", [#"LIVE_ID="com.example.aaa""#])
        let reports = setting.host.loadPlugins(from: setting.searchPath)
        #expect(setting.host.plugins.map(\.descriptor.id.rawValue) == ["com.example.live"], "\(reports.map(\.status))")
        try setting.drop(version: "2.0", [#"LIVE_SECOND_ID="com.example.aaa""#])
        let change = setting.host.reload(libraryAt: path)
        #expect(change.kind == .reloaded, "\(change.sentence)")
        #expect(change.load?.refused.map(\.id) == ["com.example.aaa"], "\(change.sentence)")
        #expect(setting.host.plugins.map(\.descriptor.id.rawValue) == ["com.example.live"])
        setting.host.open(url: "a")
        #expect(setting.counts() == ["count 1 (2.0)"], "\(setting.logs.messages(plugin: nil))")
    }

    /// A joining library whose worker the host ended after its load (a bus call on behalf of another
    /// library's plugin, written on the channel as it registered) does not join: the host does not
    /// switch to a worker that ended.
    @Test func aLibraryWhoseWorkerEndedBeforeTheSwitchDoesNotJoin() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        let path = try PluginCompiler.hostile("libhostile.so", in: setting.plugins, ["FORGE_SENDER_AT=AT_REGISTER"])
        let change = setting.host.join(libraryAt: path)
        #expect(change.kind == .joinFailed, "\(change.sentence)")
        #expect(change.sentence.contains("it sent a post on behalf of 'com.example.victim'"), "\(change.sentence)")
        #expect(setting.host.plugins.isEmpty)
    }

    /// A new version gets its restarts anew: the one restart the host allows was used by the old
    /// version's crash, and the new version's crash is restarted all the same. The reload lets go of
    /// the old version's workers, the one that crashed too.
    @Test func aNewVersionGetsItsRestartsAnew() throws {
        let directory = try TemporaryDirectory("plugboard-live-restarts")
        defer { directory.remove() }
        let path = directory.file("libhostile.so")
        let host = PluginHost(isolation: .workers(worker: TestPaths.worker), restarts: 1) { _ in }
        defer { host.shutdown() }
        try PluginCompiler.hostile("libhostile.so", in: directory.path, ["SEGV_AT=AT_OPEN_URL"])
        try #require(host.loadLibrary(at: path).status == .loaded)
        host.open(url: "a")
        #expect(host.plugins.count == 1, "the old version's worker was restarted")
        #expect(host.loader.loaded.workers(loadedFrom: path).count == 2, "the crashed worker and its restart")
        try PluginCompiler.hostile("next.so", in: directory.path, ["SEGV_AT=AT_OPEN_URL", "LOG_AT=AT_INIT"])
        #expect(rename(directory.file("next.so"), path) == 0)
        let change = host.reload(libraryAt: path)
        #expect(change.kind == .reloaded, "\(change.sentence)")
        #expect(host.loader.loaded.workers(loadedFrom: path).count == 1, "the new version's worker alone")
        host.open(url: "b")
        #expect(host.plugins.count == 1, "the new version's worker was restarted")
    }

    /// The host lets go of the workers of versions it no longer uses (replaced, refused, left): a host
    /// that reloads a library again and again holds one worker for it, not one per version.
    @Test func replacedAndRefusedVersionsLeaveNoWorkerHeld() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        let path = try setting.drop(version: "1.0")
        #expect(setting.host.loadLibrary(at: path).status == .loaded)
        for version in ["2.0", "3.0", "4.0"] {
            try setting.drop(version: version)
            #expect(setting.host.reload(libraryAt: path).kind == .reloaded)
        }
        try setting.drop(version: "5.0", ["LIVE_CRASH_IN_RESTORE"])
        #expect(setting.host.reload(libraryAt: path).kind == .reloadFailed)
        #expect(setting.host.loader.loaded.workers(loadedFrom: path).count == 1)
        setting.host.open(url: "a")
        #expect(setting.counts() == ["count 1 (4.0)"])
        #expect(setting.host.unload(libraryAt: path)?.kind == .left)
        #expect(setting.host.loader.loaded.workers(loadedFrom: path).isEmpty)
    }

    /// A library that joins a running host and finds its state file unusable starts without state;
    /// at the host's next save, that file is kept aside before the new state is written, as it is for
    /// a library loaded at the start.
    @Test func aJoiningLibrarysUnusableStateFileIsKeptAside() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        _ = setting.host.restoreState(from: setting.store)
        let file = setting.store.path(of: PluginID(unchecked: "com.example.live"))
        try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: file).deletingLastPathComponent().path,
                                                withIntermediateDirectories: true)
        try Data("not a state".utf8).write(to: URL(fileURLWithPath: file))
        let path = try setting.drop(version: "1.0")
        let joined = setting.host.join(libraryAt: path)
        #expect(joined.kind == .joined && joined.states.first?.entries.first?.outcome == .noState, "\(joined.sentence)")
        let saved = setting.host.saveState(to: setting.store)
        #expect(saved.entries.first?.warning?.contains("was kept as '\(file + SavedStateStore.asideSuffix)'") == true, "\(saved.entries)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file + SavedStateStore.asideSuffix)) == Data("not a state".utf8))
    }

    /// A restart brings back only the version that served. Its file was replaced by one that also
    /// registers another library's plugin id; restarted in its place after the crash, that version
    /// would take the id, which withdraws it from the library that serves it.
    @Test func aRestartDoesNotLoadAnotherVersion() throws {
        let directory = try TemporaryDirectory("plugboard-live-restart-version")
        defer { directory.remove() }
        let path = directory.file("libhostile.so")
        let (host, logs) = Self.restartingHost(worker: TestPaths.worker)
        defer { host.shutdown() }
        try PluginCompiler.hostile("libhostile.so", in: directory.path, ["SEGV_AT=AT_OPEN_URL"])
        try PluginCompiler.compile(TestPaths.fixtures + "/live_counter.c", to: directory.file("libother.so"))
        #expect(host.loadPlugins(from: PluginSearchPath(explicit: [directory.path])).map(\.status) == [.loaded, .loaded])
        let next = try PluginCompiler.compile(TestPaths.fixtures + "/live_counter.c", to: directory.file("next.so"),
                                              flags: [#"-DLIVE_ID="com.example.hostile""#, #"-DLIVE_SECOND_ID="com.example.live""#])
        #expect(rename(next, path) == 0)
        host.open(url: "a")
        let messages = logs.messages(plugin: nil)
        #expect(messages.contains("could not restart the worker of \(path) (restart 1 of 1): scan: the file changed since its worker "
                                  + "loaded it, and a restart brings back only the version that served"), "\(messages)")
        #expect(host.plugins.map(\.descriptor.id.rawValue) == ["com.example.live"], "\(messages)")
    }

    /// A restarted library that registers an id another library serves (the same file, another id
    /// in a new process) is refused that id; the other library's plugin keeps it and serves on, where
    /// the load rule for two claims would have withdrawn it for good.
    @Test func aRestartedLibraryCannotTakeAnIdAnotherServes() throws {
        let directory = try TemporaryDirectory("plugboard-live-restart-id")
        defer { directory.remove() }
        let plugins = directory.file("plugins")
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: false)
        let path = try PluginCompiler.hostile("libhostile.so", in: plugins, ["SEGV_AT=AT_OPEN_URL", "ID_FROM_ENVIRONMENT"])
        try PluginCompiler.compile(TestPaths.fixtures + "/live_counter.c", to: plugins + "/libother.so")
        // A stand-in for the worker that becomes the worker; from its third start (the restart, after
        // the two libraries' first) the library registers the other's id.
        let starts = directory.file("starts")
        try directory.write("worker.sh", """
            #!/bin/sh
            echo >> '\(starts)'
            if [ "$(wc -l < '\(starts)')" -ge 3 ]; then export HOSTILE_ID_NOW=com.example.live; fi
            exec '\(TestPaths.worker)' "$@"
            """)
        #expect(chmod(directory.file("worker.sh"), 0o755) == 0)
        let (host, logs) = Self.restartingHost(worker: directory.file("worker.sh"))
        defer { host.shutdown() }
        #expect(host.loadPlugins(from: PluginSearchPath(explicit: [plugins])).map(\.status) == [.loaded, .loaded])
        host.open(url: "a")
        let messages = logs.messages(plugin: nil)
        #expect(messages.contains("could not restart the worker of \(path) (restart 1 of 1): register: no plugin of the library "
                                  + "could be registered: plugin id 'com.example.live' is registered by \(plugins)/libother.so, "
                                  + "which serves it; a restarted library cannot take it"), "\(messages)")
        #expect(host.plugins.map(\.descriptor.id.rawValue) == ["com.example.live"], "\(messages)")
        host.open(url: "b")
        #expect(logs.messages(plugin: "com.example.live").filter { $0.hasPrefix("count") }.count == 2, "\(logs.messages(plugin: "com.example.live"))")
    }

    /// A restart applies the trust rule to the library's folder again: one made writable by others
    /// since the library loaded is refused.
    @Test func aRestartRefusesAFolderOthersMayWriteNow() throws {
        let directory = try TemporaryDirectory("plugboard-live-restart-folder")
        defer { directory.remove() }
        let plugins = directory.file("plugins")
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: false)
        let path = try PluginCompiler.hostile("libhostile.so", in: plugins, ["SEGV_AT=AT_OPEN_URL"])
        let (host, logs) = Self.restartingHost(worker: TestPaths.worker)
        defer { host.shutdown() }
        #expect(host.loadPlugins(from: PluginSearchPath(explicit: [plugins])).map(\.status) == [.loaded])
        #expect(chmod(plugins, 0o777) == 0)
        host.open(url: "a")
        let messages = logs.messages(plugin: nil)
        let refusal = messages.first { $0.hasPrefix("could not restart the worker of \(path) (restart 1 of 1): trust: ") }
        #expect(refusal?.contains("plugboard-live-restart-folder-") == true, "\(messages)")
        #expect(refusal?.contains("/plugins' of the plugin file is writable by group and others (mode 0777)") == true, "\(messages)")
        #expect(host.plugins.isEmpty)
    }

    /// A file rewritten in place with its size and modification time put back (`cp -p`, `rsync
    /// --inplace -t`) is a change all the same (its change time is not the same): a restart does not
    /// bring it back.
    @Test func aRestartRefusesAFileRewrittenInPlaceWithItsTimesPutBack() throws {
        let directory = try TemporaryDirectory("plugboard-live-restart-in-place")
        defer { directory.remove() }
        let plugins = directory.file("plugins")
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: false)
        let path = try PluginCompiler.hostile("libhostile.so", in: plugins, ["SEGV_AT=AT_OPEN_URL", #"HOSTILE_VERSION="1.0""#])
        let next = try PluginCompiler.hostile("next.so", in: directory.path, ["SEGV_AT=AT_OPEN_URL", #"HOSTILE_VERSION="2.0""#])
        let (host, logs) = Self.restartingHost(worker: TestPaths.worker)
        defer { host.shutdown() }
        #expect(host.loadPlugins(from: PluginSearchPath(explicit: [plugins])).map(\.status) == [.loaded])
        var before = stat()
        try #require(stat(path, &before) == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: next))
        try #require(bytes.count == Int(before.st_size), "the two versions differ in size")
        let file = try #require(FileHandle(forWritingAtPath: path))
        try file.write(contentsOf: bytes)
        try file.close()
        var times = [before.st_atim, before.st_mtim]
        try #require(utimensat(AT_FDCWD, path, &times, 0) == 0)
        var after = stat()
        try #require(stat(path, &after) == 0)
        try #require(after.st_ino == before.st_ino && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec
                     && after.st_mtim.tv_sec == before.st_mtim.tv_sec)
        host.open(url: "a")
        let messages = logs.messages(plugin: nil)
        #expect(messages.contains("could not restart the worker of \(path) (restart 1 of 1): scan: the file changed since its worker "
                                  + "loaded it (its change time: rewritten in place, linked or its mode set again), and a "
                                  + "restart brings back only the version that served"), "\(messages)")
        #expect(host.plugins.isEmpty, "\(host.plugins.map(\.descriptor.version))")
    }

    /// The file a restart checked is the file its new worker loads: another version put at the path
    /// while the worker starts (after the host's check, before the worker's own) is refused, as above.
    @Test func aFileSwappedWhileARestartedWorkerStartsIsRefused() throws {
        let directory = try TemporaryDirectory("plugboard-live-restart-swap")
        defer { directory.remove() }
        let plugins = directory.file("plugins")
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: false)
        let path = try PluginCompiler.hostile("libhostile.so", in: plugins, ["SEGV_AT=AT_OPEN_URL"])
        try PluginCompiler.compile(TestPaths.fixtures + "/live_counter.c", to: plugins + "/libother.so")
        let next = try PluginCompiler.compile(TestPaths.fixtures + "/live_counter.c", to: directory.file("next.so"),
                                              flags: [#"-DLIVE_ID="com.example.hostile""#, #"-DLIVE_SECOND_ID="com.example.live""#])
        // A stand-in for the worker that becomes the worker; at its third start (the restart, after
        // the two libraries' first), it first puts the new version in place.
        let (starts, worker) = (directory.file("starts"), directory.file("worker.sh"))
        try directory.write("worker.sh", """
            #!/bin/sh
            echo >> '\(starts)'
            if [ "$(wc -l < '\(starts)')" -eq 3 ]; then mv '\(next)' '\(path)'; fi
            exec '\(TestPaths.worker)' "$@"
            """)
        #expect(chmod(worker, 0o755) == 0)
        let (host, logs) = Self.restartingHost(worker: worker)
        defer { host.shutdown() }
        #expect(host.loadPlugins(from: PluginSearchPath(explicit: [plugins])).map(\.status) == [.loaded, .loaded])
        host.open(url: "a")
        let messages = logs.messages(plugin: nil)
        #expect(messages.contains("could not restart the worker of \(path) (restart 1 of 1): scan: the file changed while its "
                                  + "worker started: the worker found another file at the path than the one the host checked"),
                "\(messages)")
        #expect(host.plugins.map(\.descriptor.id.rawValue) == ["com.example.live"], "\(messages)")
        #expect(!FileManager.default.fileExists(atPath: next), "the stand-in did not put the new version in place")
    }

    @Test func reloadCarriesTheStateAndUnloadSavesIt() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        let path = try setting.drop(version: "1.0")
        #expect(setting.host.loadPlugins(from: setting.searchPath).map(\.status) == [.loaded])
        _ = setting.host.restoreState(from: setting.store)
        setting.host.open(url: "a")
        setting.host.open(url: "b")
        try setting.drop(version: "2.0")
        let reloaded = setting.host.reload(libraryAt: path)
        #expect(reloaded.kind == .reloaded && reloaded.fromVersion == "1.0" && reloaded.toVersion == "2.0", "\(reloaded.sentence)")
        setting.host.open(url: "c")
        #expect(setting.counts() == ["count 1 (1.0)", "count 2 (1.0)", "count 3 (2.0)"])
        #expect(setting.host.plugins.map { $0.descriptor.version } == ["2.0"])
        let left = try #require(setting.host.unload(libraryAt: path))
        #expect(left.kind == .left && left.states.first?.entries.map(\.outcome) == [.saved], "\(left.sentence)")
        #expect(setting.host.plugins.isEmpty && setting.host.unload(libraryAt: path) == nil)
        guard case .found(let file) = setting.store.load(PluginID(unchecked: "com.example.live")) else {
            Issue.record("no state file after the plugin left")
            return
        }
        #expect(String(decoding: file.state, as: UTF8.self) == "count 3" && file.pluginVersion == "2.0")
    }

    /// A notification queued for the old version's observer is delivered once, to the new version.
    @Test func aNotificationWaitingForTheOldVersionGoesToTheNewOne() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        let build = { (marker: String) in
            try setting.drop("bus_plugin.c", as: "libbus.so", [#"BUS_OBSERVE="com.example.ping""#, "BUILD_\(marker)"])
        }
        let path = try build("ONE")
        #expect(setting.host.loadLibrary(at: path).status == .loaded)
        setting.host.willFinishLaunching()
        setting.host.didFinishLaunching()
        try setting.host.post("com.example.ping")
        _ = try build("TWO")
        #expect(setting.host.reload(libraryAt: path).kind == .reloaded)
        let delivered = setting.host.deliverNotifications()
        #expect(delivered.deliveries.map(\.receiver) == ["com.example.bus"] && delivered.deliveries.allSatisfy { $0.failure == nil },
                "\(delivered)")
        #expect(setting.logs.messages(plugin: "com.example.bus").filter { $0.hasPrefix("received") }.count == 1)
    }

    /// A host whose workers, of `worker`, restart once, and the log lines it gives.
    static func restartingHost(worker: String) -> (PluginHost, LogCollector) {
        let logs = LogCollector()
        let host = PluginHost(isolation: .workers(worker: worker), restarts: 1) { record in
            logs.append(source: record.source, plugin: record.plugin, level: record.level.rawValue, message: record.message)
        }
        return (host, logs)
    }

    /// A plugin folder that fails the trust rule now is said so once, and its changes wait until it
    /// passes again; then they are applied.
    @Test func aFolderThatFailsTheTrustRuleNowIsSaidSoOnce() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        try setting.drop(version: "1.0")
        #expect(setting.host.loadPlugins(from: setting.searchPath).map(\.status) == [.loaded])
        #expect(chmod(setting.plugins, 0o777) == 0)
        try setting.drop(version: "2.0")
        #expect(setting.host.applyChanges(in: setting.searchPath).isEmpty)
        #expect(setting.host.applyChanges(in: setting.searchPath).isEmpty)
        let warnings = setting.logs.messages(plugin: nil).filter { $0.contains("what changes in it is not applied") }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.hasPrefix("\(setting.plugins) is refused (trust: ") == true, "\(warnings)")
        #expect(chmod(setting.plugins, 0o755) == 0)
        #expect(setting.host.applyChanges(in: setting.searchPath).map(\.kind) == [.reloaded])
    }

    /// A function handle resolved before a reload calls the new version (the old worker is gone).
    @Test func aFunctionHandleResolvesToTheNewVersion() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        let build = { (marker: String) in try setting.drop("functions_plugin.c", as: "libfunctions.so", ["BUILD_\(marker)"]) }
        let path = try build("ONE")
        #expect(setting.host.loadLibrary(at: path).status == .loaded)
        let handle = try setting.host.function(FunctionAddress(parsing: "com.example.functions.weigh"))
        let arguments: [PluginValue] = [.int(3), .double(2.5), .string("abc")]
        #expect(try handle.call(arguments) == .double(10.5))
        _ = try build("TWO")
        let workersBefore = setting.host.loader.loaded.workers(loadedFrom: path)
        #expect(setting.host.reload(libraryAt: path).kind == .reloaded)
        #expect(try handle.call(arguments) == .double(10.5))
        #expect(workersBefore.allSatisfy { $0.ending != nil }, "the old worker ended")
    }

    /// A library renamed while it serves leaves under its old name and joins under its new one, in
    /// the same pass: the new name, the same file as the old, is tried again once the old one left.
    /// Linked under a second name while it still serves, it does not join twice: it is skipped, as
    /// at the start, and that is no failure.
    @Test func aRenamedLibraryLeavesAndJoinsUnderItsNewName() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        let old = try setting.drop(version: "1.0")
        #expect(setting.host.loadPlugins(from: setting.searchPath).map(\.status) == [.loaded])
        let linked = setting.plugins + "/liblinked.so"
        #expect(link(old, linked) == 0)
        let twice = setting.host.applyChanges(in: setting.searchPath)
        #expect(twice.map(\.kind) == [.skipped], "\(twice.map(\.sentence))")
        #expect(twice.map(\.sentence) == ["skipped \(linked): the same file as \(old)"], "\(twice.map(\.sentence))")
        #expect(twice.first?.failure == nil && twice.first?.load?.sameFileAs == old)
        #expect(unlink(linked) == 0)
        let renamed = setting.plugins + "/librenamed.so"
        #expect(rename(old, renamed) == 0)
        let changes = setting.host.applyChanges(in: setting.searchPath)
        #expect(changes.map(\.kind) == [.left, .joined] || changes.map(\.kind) == [.joined, .left], "\(changes.map(\.sentence))")
        #expect(setting.host.plugins.map(\.source) == [.library(path: renamed)])
        setting.host.open(url: "a")
        #expect(setting.counts() == ["count 1 (1.0)"])
    }

    @Test func applyChangesTakesEachChangeOnceAndLeavesAFileThatFailedUntilItChanges() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        #expect(setting.host.applyChanges(in: setting.searchPath).isEmpty)
        try setting.drop(version: "1.0")
        #expect(setting.host.applyChanges(in: setting.searchPath).map(\.kind) == [.joined])
        #expect(setting.host.applyChanges(in: setting.searchPath).isEmpty, "unchanged: nothing to do")
        try setting.drop(version: "2.0", ["LIVE_REFUSE"])
        #expect(setting.host.applyChanges(in: setting.searchPath).map(\.kind) == [.reloadFailed])
        #expect(setting.host.applyChanges(in: setting.searchPath).isEmpty, "a file that failed waits until it changes")
        try setting.drop(version: "3.0")
        let fixed = setting.host.applyChanges(in: setting.searchPath)
        #expect(fixed.map(\.kind) == [.reloaded] && fixed.first?.fromVersion == "1.0" && fixed.first?.toVersion == "3.0")
    }

    @Test func aFileTheTrustRuleRefusedJoinsOnceItsPermissionsAreFixed() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        let path = try setting.drop(version: "1.0")
        #expect(chmod(path, 0o777) == 0)
        let refused = setting.host.applyChanges(in: setting.searchPath)
        #expect(refused.map(\.kind) == [.joinFailed] && refused.first?.failure?.contains("writable") == true,
                "\(refused.map(\.sentence))")
        #expect(setting.host.applyChanges(in: setting.searchPath).isEmpty, "refused once")
        #expect(chmod(path, 0o755) == 0)
        #expect(setting.host.applyChanges(in: setting.searchPath).map(\.kind) == [.joined], "a chmod is a change")
    }

    @Test func inProcessALibraryJoinsAndAChangeNeedsARestartReportedOnce() throws {
        let setting = try Setting(isolation: .inProcess)
        defer { setting.remove() }
        let path = try setting.drop(version: "1.0", as: "libinprocess.so", [#"LIVE_ID="com.example.inprocess""#])
        #expect(setting.host.applyChanges(in: setting.searchPath).map(\.kind) == [.joined])
        try setting.drop(version: "2.0", as: "libinprocess.so", [#"LIVE_ID="com.example.inprocess""#])
        #expect(setting.host.applyChanges(in: setting.searchPath).map(\.kind) == [.restartNeeded])
        #expect(setting.host.applyChanges(in: setting.searchPath).isEmpty, "reported once")
        #expect(unlink(path) == 0)
        #expect(setting.host.applyChanges(in: setting.searchPath).map(\.kind) == [.restartNeeded], "the removal, once")
        #expect(setting.host.applyChanges(in: setting.searchPath).isEmpty)
        #expect(setting.host.plugins.map(\.descriptor.version) == ["1.0"], "the loaded library serves on")
    }

    /// An id that moves from one library to another in one deployment: the library that takes it is
    /// refused while the other still serves it, and tried again once the other's change freed it.
    @Test func anIdMovedBetweenTwoLibrariesInOneChangeMoves() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        try setting.drop(version: "1.0", as: "liba.so", [#"LIVE_ID="com.example.a""#])
        try setting.drop(version: "1.0", as: "libb.so", [#"LIVE_ID="com.example.b""#])
        #expect(setting.host.applyChanges(in: setting.searchPath).map(\.kind) == [.joined, .joined])
        try setting.drop(version: "2.0", as: "liba.so", [#"LIVE_ID="com.example.b""#])
        try setting.drop(version: "2.0", as: "libb.so", [#"LIVE_ID="com.example.c""#])
        let changes = setting.host.applyChanges(in: setting.searchPath)
        #expect(changes.map(\.kind) == [.reloaded, .reloaded], "\(changes.map(\.sentence))")
        #expect(setting.host.plugins.map(\.descriptor.id.rawValue).sorted() == ["com.example.b", "com.example.c"])

        // A library that keeps its own plugin and takes one another drops: refused in part, then tried again.
        try setting.drop(version: "3.0", as: "liba.so", [#"LIVE_ID="com.example.b""#, #"LIVE_SECOND_ID="com.example.c""#])
        try setting.drop(version: "3.0", as: "libb.so", [#"LIVE_ID="com.example.d""#])
        let moved = setting.host.applyChanges(in: setting.searchPath)
        #expect(moved.map(\.kind) == [.reloaded, .reloaded], "\(moved.map(\.sentence))")
        #expect(moved.first?.fromVersion == "2.0" && moved.first?.toVersion == "3.0", "tried again, and reported from 2.0")
        #expect(setting.host.plugins.map(\.descriptor.id.rawValue).sorted() == ["com.example.b", "com.example.c", "com.example.d"])
    }

    /// A library whose name becomes a dangling link leaves, as a removed one does (it was kept, serving
    /// a file no longer there).
    @Test func aLibraryReplacedByADanglingLinkLeaves() throws {
        let setting = try Setting(isolation: .workers(worker: TestPaths.worker))
        defer { setting.remove() }
        let path = try setting.drop(version: "1.0")
        #expect(setting.host.applyChanges(in: setting.searchPath).map(\.kind) == [.joined])
        let link = setting.directory.file("link")
        #expect(symlink(setting.directory.file("nowhere.so"), link) == 0 && rename(link, path) == 0)
        let changes = setting.host.applyChanges(in: setting.searchPath)
        #expect(changes.map(\.kind) == [.left], "\(changes.map(\.sentence))")
        #expect(setting.host.plugins.isEmpty)
    }

    /// A library that serves in process, joined again, is refused for its ids and serves on: the
    /// refused second hold lets go of it without its `deinit` (which had cut it off from the host),
    /// and without ending its observations.
    @Test func inProcessJoiningAServingLibraryAgainLeavesItServing() throws {
        let setting = try Setting(isolation: .inProcess)
        defer { setting.remove() }
        let path = try setting.drop(version: "1.0")
        let bus = try setting.drop("bus_plugin.c", as: "libbus.so", [#"BUS_OBSERVE="com.example.ping""#])
        #expect(setting.host.applyChanges(in: setting.searchPath).map(\.kind) == [.joined, .joined])
        setting.host.willFinishLaunching()
        setting.host.open(url: "live://1")
        let again = setting.host.join(libraryAt: path)
        #expect(again.kind == .joinFailed && again.failure?.contains("is registered by") == true, "\(again.sentence)")
        setting.host.open(url: "live://2")
        #expect(setting.counts() == ["count 1 (1.0)", "count 2 (1.0)"], "\(setting.logs.all)")
        #expect(setting.host.join(libraryAt: bus).kind == .joinFailed)
        try setting.host.post("com.example.ping")
        #expect(setting.host.deliverNotifications().deliveries.map(\.receiver) == ["com.example.bus"], "its observer serves on")
        let unload = setting.host.unload(libraryAt: path)
        #expect(unload?.kind == .restartNeeded && unload?.failure?.hasPrefix("was to leave, but it is loaded in the host's process") == true,
                "\(unload?.sentence ?? "nil")")
    }

    /// In process, a path whose earlier file was opened (and failed) cannot load another file: the
    /// dynamic loader would hand back the earlier image, and its code would run under the new name.
    @Test func inProcessAFileReplacedAfterItsPathWasOpenedNeedsARestart() throws {
        let setting = try Setting(isolation: .inProcess)
        defer { setting.remove() }
        let path = try setting.drop(version: "1.0", ["LIVE_REFUSE"])
        let refused = setting.host.applyChanges(in: setting.searchPath)
        #expect(refused.map(\.kind) == [.joinFailed] && refused.first?.failure?.contains("init returned false") == true,
                "\(refused.map(\.sentence))")
        try setting.drop(version: "2.0")
        let replaced = setting.host.join(libraryAt: path)
        #expect(replaced.kind == .joinFailed && replaced.failure?.contains("this process opened another file from this path before") == true
                && replaced.failure?.contains("restart the process to load this file") == true, "\(replaced.sentence)")
        #expect(setting.host.plugins.isEmpty)
    }

    @Test func theWatcherSaysWhenAFolderChanged() throws {
        let setting = try Setting(isolation: .inProcess)
        defer { setting.remove() }
        let watcher = try PluginFolderWatcher(setting.searchPath)
        #expect(watcher.folders == [setting.plugins] && !watcher.takeChanges())
        try setting.drop(version: "1.0")
        var ready = pollfd(fd: watcher.descriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 5_000) == 1 && watcher.takeChanges())
        #expect(!watcher.takeChanges(), "taken")
        let missing = try PluginFolderWatcher(PluginSearchPath(explicit: [setting.directory.file("none")]))
        #expect(missing.folders.isEmpty, "a missing folder is not watched")
    }

    /// A folder reached through a symbolic link that is swapped, and a folder made after the watcher
    /// started, are watched from then on.
    @Test func theWatcherFollowsASwappedLinkAndAFolderMadeLater() throws {
        let directory = try TemporaryDirectory("plugboard-live-watch")
        defer { directory.remove() }
        for folder in ["one", "two"] { try FileManager.default.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: false) }
        #expect(symlink(directory.file("one"), directory.file("current")) == 0)
        let later = directory.file("later")
        let watcher = try PluginFolderWatcher(PluginSearchPath(explicit: [directory.file("current"), later]))
        #expect(watcher.folders == [directory.file("current")])
        /// Whether the watcher reports a change within `milliseconds` (short when none is expected).
        func changed(within milliseconds: Int32 = 5_000) -> Bool {
            var ready = pollfd(fd: watcher.descriptor, events: Int16(POLLIN), revents: 0)
            return poll(&ready, 1, milliseconds) == 1 && watcher.takeChanges()
        }
        #expect(FileManager.default.createFile(atPath: directory.file("two/early.so"), contents: Data([1])))
        #expect(!changed(within: 300), "the folder the link does not lead to yet is not watched")
        // `ln -sfn two current`: a new link renamed over the old one.
        #expect(symlink(directory.file("two"), directory.file("next")) == 0 && rename(directory.file("next"), directory.file("current")) == 0)
        #expect(changed(), "the swap is a change")
        #expect(FileManager.default.createFile(atPath: directory.file("two/lib.so"), contents: Data([1])))
        #expect(changed(), "the folder the link leads to now is watched")
        #expect(FileManager.default.createFile(atPath: directory.file("one/old.so"), contents: Data([1])))
        #expect(!changed(within: 300), "the folder it led to before is not")
        #expect(mkdir(later, 0o755) == 0)
        #expect(changed() && watcher.folders == [directory.file("current"), later])
        #expect(FileManager.default.createFile(atPath: later + "/lib.so", contents: Data([1])))
        #expect(changed(), "a folder made later is watched")
        // The folder the link leads to, removed and made again: the link leads to it again.
        #expect((try? FileManager.default.removeItem(atPath: directory.file("two"))) != nil)
        #expect(changed() && watcher.folders == [later], "\(watcher.folders)")
        #expect(mkdir(directory.file("two"), 0o755) == 0)
        #expect(changed() && watcher.folders == [directory.file("current"), later], "\(watcher.folders)")
        #expect(FileManager.default.createFile(atPath: directory.file("two/again.so"), contents: Data([1])))
        #expect(changed(), "the folder made again is watched")
    }

    @Test func aFileOpenForWritingIsNotComplete() throws {
        let directory = try TemporaryDirectory("plugboard-live-writer")
        defer { directory.remove() }
        let path = directory.file("lib.so")
        let writer = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        #expect(writer >= 0)
        #expect(LibraryFile.isOpenForWriting(path))
        close(writer)
        #expect(!LibraryFile.isOpenForWriting(path))
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        #expect(!LibraryFile.isOpenForWriting(path), "a reader is no writer")
        close(reader)
    }

    /// A writer that opens the file while the check holds its lease breaks the lease, and the kernel
    /// signals the process that held it: that signal must not end the host (SIGIO would). A second
    /// thread opens the file for writing over and over while the check runs 20,000 times.
    @Test func aWriterThatBreaksTheLeaseDoesNotEndTheHost() async throws {
        let directory = try TemporaryDirectory("plugboard-live-lease")
        defer { directory.remove() }
        let path = directory.file("lib.so")
        #expect(FileManager.default.createFile(atPath: path, contents: Data([1])))
        await #expect(processExitsWith: .success) { [path = path as String] in
            final class Flag: Sendable { let raised = Atomic(false) }
            let done = Flag()
            let writer = Thread {
                while !done.raised.load(ordering: .relaxed) {
                    let descriptor = open(path, O_WRONLY | O_CLOEXEC)
                    if descriptor >= 0 { close(descriptor) }
                }
            }
            writer.start()
            for _ in 0..<20_000 { _ = LibraryFile.isOpenForWriting(path) }
            done.raised.store(true, ordering: .relaxed)
        }
    }
}
