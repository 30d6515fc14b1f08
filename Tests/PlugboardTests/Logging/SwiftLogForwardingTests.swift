import Foundation
import Logging
import Synchronization
import Testing
@testable import Plugboard

/// `PluginHost.forwarding(to:)`: plugin messages reach a swift-log `Logger` with the level of the
/// same name and the plugin and library as metadata, in process and from a worker alike.
@Suite struct SwiftLogForwardingTests {
    /// What a swift-log handler received.
    final class Entries: Sendable {
        let all = Mutex<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>([])
    }

    /// A swift-log handler that keeps every entry.
    struct Recording: LogHandler {
        let entries: Entries
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            entries.all.withLock { $0.append((event.level, "\(event.message)", event.metadata ?? [:])) }
        }
    }

    @Test(arguments: ["none", "process"])
    func pluginMessagesReachTheLoggerWithThePluginAndTheLibrary(isolation: String) throws {
        let directory = try TemporaryDirectory("plugboard-swift-log-\(isolation)")
        defer { directory.remove() }
        let library = try PluginCompiler.compile(
            TestPaths.packageRoot.appendingPathComponent("plugins/deeplink-router/deeplink_router.c").path,
            to: directory.file("deeplink-router.so"))
        let entries = Entries()
        var logger = Logger(label: "app") { _ in Recording(entries: entries) }
        logger.logLevel = .info
        let host = PluginHost(isolation: isolation == "none" ? .inProcess : .workers(worker: TestPaths.worker),
                              logHandler: PluginHost.forwarding(to: logger))
        let report = host.loadLibrary(at: library)
        try #require(report.status == .loaded, "\(report)")
        #expect(host.open(url: "myapp://theme/neon").decidedBy.map(\.rawValue) == ["com.example.deeplink-router"])
        host.willTerminate()
        host.shutdown()
        let routed = entries.all.withLock { $0.first { $0.message == "route theme neon" } }
        let entry = try #require(routed, "\(entries.all.withLock { $0.map(\.message) })")
        #expect(entry.level == .info)
        #expect(entry.metadata["plugboard.plugin"] == .string("com.example.deeplink-router"))
        #expect(entry.metadata["plugboard.source"] == .string(library))
        #expect(entries.all.withLock { $0.contains { $0.message == "shutting down; no more myapp:// links" } })
    }

    @Test func everyLevelMapsToTheLevelOfTheSameName() {
        let mapped = PluginLogRecord.Level.allCases.map(\.loggerLevel)
        #expect(mapped == [.trace, .debug, .info, .warning, .error])
    }
}
