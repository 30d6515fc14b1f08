import CPlugboard
import Logging
import PlugboardPluginAPI

/// The host's services, the Swift way; handed to the plugin factory of ``PluginLibrary/entry(_:)``.
///
/// Keep it in your plugins: it serves the library until the host shuts it down (a later call
/// is ignored by the host and reported once).
public struct PlugboardHost: Sendable {
    let pointer: HostPointer

    /// A logger whose messages go to the host's log, attributed to the plugin `id`
    /// (swift-log levels map to the host's: notice → info, critical → error).
    public func logger(for id: PluginID) -> Logger {
        Logger(label: id.rawValue) { _ in HostLogHandler(host: pointer, pluginID: id) }
    }

    /// The application's sandboxed container, or nil when this host has none
    /// (`plugboard list` and `inspect`).
    public var files: ContainerFiles? {
        pointer.table.pointee.files.map { ContainerFiles(host: pointer, table: $0) }
    }

    /// Logs `message` at error level on behalf of the library itself.
    func logLibraryError(_ message: String) {
        pointer.table.pointee.log?(pointer.table, nil, PB_LOG_ERROR, message)
    }
}
