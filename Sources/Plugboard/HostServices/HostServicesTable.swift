import CPlugboard
import PlugboardFiles
import Synchronization

/// The `pb_host_t` one library receives at `init`: the host's services, bound
/// to that library so every log line is attributed to it.
///
/// The table, its files table and its context are allocated once and never
/// freed, on purpose: a plugin may keep the pointer in a thread or an `atexit`
/// handler and call after its `deinit` (or after its `init` returned false), and
/// that call must find valid memory and be refused (``LibraryLifetime``), not
/// read freed memory. It costs one small allocation per library initialization.
final class HostServicesTable: Sendable {
    /// The library path, the ids it registered, its lifetime, and where its messages go.
    final class Context: Sendable {
        let lifetime: LibraryLifetime
        let router: LogRouter
        /// The ids the library registered: one or a few, so a list searched costs less than a set made.
        let pluginIDs = Mutex<[String]>([])
        let files: FilesAccess?
        /// The host whose functions the library's `invoke` reaches, and whose bus its notifications use.
        let invocations = InvocationRouter()
        /// The services the host's policy denies the library.
        let gate: ServiceGate
        /// How many of the library's refused bus calls are still logged.
        let refusalLog = RefusalLogBudget()
        /// The invocations the library prepared and has not released.
        let prepared = PreparedInvocations()

        init(lifetime: LibraryLifetime, router: LogRouter, files: FilesAccess?, gate: ServiceGate) {
            self.lifetime = lifetime
            self.router = router
            self.files = files
            self.gate = gate
        }
    }

    let context: Context
    /// The table handed to the library; valid for the life of the process.
    nonisolated(unsafe) let table: UnsafeMutablePointer<pb_host_t>

    /// The table of the library whose lifetime is `lifetime`; its denied services are `gate`'s.
    init(lifetime: LibraryLifetime, router: LogRouter, files: FilesAccess?, gate: ServiceGate) {
        context = Context(lifetime: lifetime, router: router, files: files, gate: gate)
        table = .allocate(capacity: 1)
        table.initialize(to: pb_host_t(
            struct_size: UInt32(MemoryLayout<pb_host_t>.size),
            abi_major: ABIVersion.host.major,
            abi_minor: ABIVersion.host.minor,
            name: HostIdentity.nameCString,
            version: HostIdentity.versionCString,
            // Retained for good: the table outlives this object (see above).
            host_data: Unmanaged.passRetained(context).toOpaque(),
            log: Self.log,
            files: files == nil ? nil : FilesTable.shared,
            invoke: InvokeService.invoke,
            release_value: InvokeService.releaseValue,
            notifications: NotificationService.table,
            prepare_invoke: InvokeService.prepareInvoke,
            set_prepared_argument: InvokeService.setPreparedArgument,
            call_prepared: InvokeService.callPrepared,
            release_prepared: InvokeService.releasePrepared))
    }

    /// `pb_host_t.log`: thread-safe, copies the message, never fails; ignored
    /// (and reported once) after the library's end.
    private static let log: @convention(c) (
        UnsafePointer<pb_host_t>?, UnsafePointer<CChar>?, pb_log_level_t, UnsafePointer<CChar>?
    ) -> Void = { host, pluginID, level, message in
        guard let data = host?.pointee.host_data else { return }
        let context = Unmanaged<Context>.fromOpaque(data).takeUnretainedValue()
        guard context.lifetime.admits("log") else { return }
        var text = message.map { String(cString: $0) } ?? "(NULL message)"
        let id = pluginID.map { PluginLogRecord.shortened(id: String(cString: $0)) }
        if let id, !context.pluginIDs.withLock({ $0.contains(id) }) { text += PluginLogRecord.mark(unknownPlugin: id) }
        let known = PluginLogRecord.Level(abiValue: level)
        if known == nil { text += " [unknown log level \(level)]" }
        context.router.deliver(PluginLogRecord(
            source: context.lifetime.libraryPath, plugin: id, level: known ?? .info, message: text))
    }
}
