import CPlugboard

/// One message a plugin logged through the host services, attributed to its source.
public struct PluginLogRecord: Sendable, Codable {
    /// Severity, as the C ABI defines it.
    public enum Level: String, Sendable, Codable, Comparable, CaseIterable {
        case trace, debug, info, warning, error

        /// The C value (`PB_LOG_*`).
        var abiValue: pb_log_level_t {
            switch self {
            case .trace: PB_LOG_TRACE
            case .debug: PB_LOG_DEBUG
            case .info: PB_LOG_INFO
            case .warning: PB_LOG_WARNING
            case .error: PB_LOG_ERROR
            }
        }

        init?(abiValue: pb_log_level_t) {
            switch abiValue {
            case PB_LOG_TRACE: self = .trace
            case PB_LOG_DEBUG: self = .debug
            case PB_LOG_INFO: self = .info
            case PB_LOG_WARNING: self = .warning
            case PB_LOG_ERROR: self = .error
            default: return nil
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool {
            (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
        }
    }

    /// Where the message came from: a library path, or "plugboard" for the host's own diagnostics.
    public let source: String
    /// The plugin the message is about; nil for the library (or host) itself.
    public let plugin: String?
    /// Severity.
    public let level: Level
    /// The text; marked when the plugin passed an id or level the host does not know.
    public let message: String

    /// A plugin id as a log call gave it, for its record: one longer than any plugin's (``PluginID/maximumLength``)
    /// names no plugin, and its first 64 bytes and "…" say which it was (a megabyte-long id would be
    /// printed whole before every such line).
    static func shortened(id: String) -> String {
        id.utf8.count <= PluginID.maximumLength ? id : String(decoding: id.utf8.prefix(64), as: UTF8.self) + "…"
    }

    /// What marks a message logged for `id`, which is not one of its library's plugins.
    static func mark(unknownPlugin id: String) -> String {
        " [logged for unknown plugin id '\(id)']"
    }

    /// `message` with the mark for `id` (``mark(unknownPlugin:)``), once.
    static func marked(_ message: String, unknownPlugin id: String) -> String {
        let mark = mark(unknownPlugin: id)
        return message.contains(mark) ? message : message + mark
    }
}

extension PluginLogRecord {
    /// The host's own line about what `who` did in `library`'s code: a line about the plugin `who`
    /// names, or about no plugin when `who` is a library's path (its `init`, `deinit`…; a scanner
    /// worker runs several libraries) or no library is known.
    static func host(_ level: Level, about who: String?, in library: String?, _ message: String) -> PluginLogRecord {
        let plugin = who.flatMap { $0.hasPrefix("/") || place(of: $0, in: library).isEmpty ? nil : $0 }
        return PluginLogRecord(source: HostIdentity.name, plugin: plugin, level: level, message: message)
    }

    /// " (LIBRARY)": where `who` ran, said after its callback in a host's sentence; "" when `who` is
    /// the library itself, or no library is known.
    static func place(of who: String, in library: String?) -> String {
        guard let library, !library.isEmpty, library != who else { return "" }
        return " (\(library))"
    }
}
