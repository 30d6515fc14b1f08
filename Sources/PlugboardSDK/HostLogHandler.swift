import CPlugboard
import Logging
import PlugboardPluginAPI

/// A swift-log handler that forwards every message to the host's log, attributed to one plugin.
///
/// Metadata is appended to the message as ` key=value` pairs. Thread-safe, like the host's log.
struct HostLogHandler: LogHandler {
    let host: HostPointer
    let pluginID: PluginID
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let pairs = merged.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        host.table.pointee.log?(host.table, pluginID.rawValue, Self.hostLevel(event.level), "\(event.message)\(pairs)")
    }

    /// The host's level for a swift-log level (notice → info, critical → error).
    private static func hostLevel(_ level: Logger.Level) -> pb_log_level_t {
        switch level {
        case .trace: PB_LOG_TRACE
        case .debug: PB_LOG_DEBUG
        case .info, .notice: PB_LOG_INFO
        case .warning: PB_LOG_WARNING
        case .error, .critical: PB_LOG_ERROR
        }
    }
}
