import Logging

extension PluginLogRecord.Level {
    /// The swift-log level of the same name (`trace` … `error`).
    public var loggerLevel: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
    }
}
