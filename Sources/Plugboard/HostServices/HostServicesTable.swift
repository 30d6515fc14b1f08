import CPlugboard
import PlugboardFiles
import Synchronization

/// The `pb_host_t` one library receives at `init`: the host's services, bound
/// to that library so every log line is attributed to it.
///
/// The table lives as long as this object; the loaded library keeps it until
/// after `deinit`, as the header promises.
final class HostServicesTable: @unchecked Sendable {
    /// The library path, the ids it registered, and where its messages go.
    final class Context: Sendable {
        let libraryPath: String
        let router: LogRouter
        let pluginIDs = Mutex<Set<String>>([])
        let files: FilesService?

        init(libraryPath: String, router: LogRouter, files: FileFacade?) {
            self.libraryPath = libraryPath
            self.router = router
            self.files = files.map(FilesService.init)
        }
    }

    let context: Context
    let table: UnsafeMutablePointer<pb_host_t>
    private let filesTable: UnsafeMutablePointer<pb_files_t>?

    init(libraryPath: String, router: LogRouter, files: FileFacade?) {
        context = Context(libraryPath: libraryPath, router: router, files: files)
        filesTable = files == nil ? nil : FilesService.makeTable()
        table = .allocate(capacity: 1)
        table.initialize(to: pb_host_t(
            struct_size: UInt32(MemoryLayout<pb_host_t>.size),
            abi_major: ABIVersion.host.major,
            abi_minor: ABIVersion.host.minor,
            name: HostIdentity.nameCString,
            version: HostIdentity.versionCString,
            host_data: Unmanaged.passUnretained(context).toOpaque(),
            log: Self.log,
            files: filesTable.map { UnsafePointer($0) }))
    }

    deinit {
        table.deinitialize(count: 1)
        table.deallocate()
        filesTable?.deinitialize(count: 1)
        filesTable?.deallocate()
    }

    /// `pb_host_t.log`: thread-safe, copies the message, never fails.
    private static let log: @convention(c) (
        UnsafePointer<pb_host_t>?, UnsafePointer<CChar>?, pb_log_level_t, UnsafePointer<CChar>?
    ) -> Void = { host, pluginID, level, message in
        guard let data = host?.pointee.host_data else { return }
        let context = Unmanaged<Context>.fromOpaque(data).takeUnretainedValue()
        var text = message.map { String(cString: $0) } ?? "(NULL message)"
        let id = pluginID.map { String(cString: $0) }
        if let id, !context.pluginIDs.withLock({ $0.contains(id) }) { text += " [logged for unknown plugin id '\(id)']" }
        let known = PluginLogRecord.Level(abiValue: level)
        if known == nil { text += " [unknown log level \(level)]" }
        context.router.deliver(PluginLogRecord(
            source: context.libraryPath, plugin: id, level: known ?? .info, message: text))
    }
}
