import Logging

/// The host's log handler for an application that logs with swift-log.
extension PluginHost {
    /// A log handler that hands every plugin message to `logger`, for an application that
    /// already logs with swift-log: `PluginHost(logHandler: PluginHost.forwarding(to: logger))`.
    ///
    /// Each record becomes one entry at the level of the same name, with metadata
    /// `plugboard.source` (the library's path, or `plugboard` for the host's own diagnostics)
    /// and, when the message is about a plugin, `plugboard.plugin` (its id); the logger's
    /// own level filters as usual.
    public static func forwarding(to logger: Logger) -> LogHandler {
        { record in
            var metadata: Logger.Metadata = ["plugboard.source": .string(record.source)]
            if let plugin = record.plugin { metadata["plugboard.plugin"] = .string(plugin) }
            logger.log(level: record.level.loggerLevel, "\(record.message)", metadata: metadata)
        }
    }
}
