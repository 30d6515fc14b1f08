import Synchronization

/// Marks a worker's log lines that name a plugin its library did not register, as the services
/// table marks them in process (``PluginLogRecord/marked(_:unknownPlugin:)``): the worker marks what
/// its plugins log, and plugin code can write log frames on the channel itself, naming any plugin.
///
/// While a load is under way the library's plugins are not known here yet, so a line naming one,
/// unmarked (a plugin thread's, between registration and the load's report; or a forged one), is
/// held until the report names them, then delivered, checked, in order. Lines the worker marked
/// itself, or that name no plugin, are delivered at once; so are lines past ``heldLimit`` or
/// ``heldBytesLimit``, checked against what is known.
final class WorkerLogCheck: Sendable {
    private struct State {
        /// The ids of the worker's libraries' plugins the host registered.
        var registered: Set<String> = []
        /// The lines held while a load is under way; nil when none is.
        var held: [PluginLogRecord]?
        /// The bytes of the held lines' messages.
        var heldBytes = 0
    }

    /// The most lines held during one load: a plugin that floods forged lines holds no more.
    static let heldLimit = 1_000
    /// The most bytes of messages held during one load: nor does one that sends long lines.
    static let heldBytesLimit = 4 << 20

    private let state = Mutex(State())
    private let deliver: PluginHost.LogHandler

    /// A check that hands each line to `deliver`.
    init(deliver: @escaping PluginHost.LogHandler) {
        self.deliver = deliver
    }

    /// A load begins: from now until ``loaded(_:)``, lines naming a plugin not known yet are held.
    func loading() {
        state.withLock { $0.held = $0.held ?? [] }
    }

    /// The load ended; the host registered `plugins` of its library (none when it failed, or refused
    /// them all). The lines held are delivered, each checked.
    func loaded(_ plugins: [PluginID]) {
        state.withLock { state in
            state.registered.formUnion(plugins.map(\.rawValue))
            for record in state.held ?? [] { deliver(Self.checked(record, state.registered)) }
            state.held = nil
            state.heldBytes = 0
        }
    }

    /// Delivers `record` (marked when it names a plugin the library did not register), or holds it
    /// while a load is under way.
    func take(_ record: PluginLogRecord) {
        state.withLock { state in
            guard let plugin = record.plugin, !state.registered.contains(plugin),
                  !record.message.contains(PluginLogRecord.mark(unknownPlugin: plugin)) else { return deliver(record) }
            let bytes = record.message.utf8.count
            if let held = state.held, held.count < Self.heldLimit, state.heldBytes + bytes <= Self.heldBytesLimit {
                state.held?.append(record)
                state.heldBytes += bytes
            } else {
                deliver(Self.checked(record, state.registered))
            }
        }
    }

    /// Whether the plugin `id` is one of the worker's the host registered.
    func knows(_ id: String) -> Bool {
        state.withLock { $0.registered.contains(id) }
    }

    /// `record`, marked when the plugin it names is not in `registered`.
    private static func checked(_ record: PluginLogRecord, _ registered: Set<String>) -> PluginLogRecord {
        guard let plugin = record.plugin, !registered.contains(plugin) else { return record }
        return PluginLogRecord(source: record.source, plugin: plugin, level: record.level,
                               message: PluginLogRecord.marked(record.message, unknownPlugin: plugin))
    }
}
