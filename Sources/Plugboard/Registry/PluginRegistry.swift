import CPlugboard

/// The registered plugins of one host: ids unique, kept in dispatch order, and
/// split per concern so each event walks only the plugins that take part in it.
///
/// The per-concern rosters are rebuilt once after registrations change, not per
/// event; an event reads one stored roster.
final class PluginRegistry {
    /// One plugin with the facts the host keeps about it.
    struct Entry {
        let plugin: any ApplicationPlugin
        let descriptor: PluginDescriptor
        let concerns: Set<PluginConcern>
        let source: PluginSource
    }

    private(set) var entries: [Entry] = []
    private var sources: [PluginID: PluginSource] = [:]
    /// Ids withdrawn because two libraries claimed them, with the refusal every later claim gets.
    private var contested: [PluginID: LoadFailure] = [:]
    private var isOrdered = true

    private(set) var launch = Roster<any LaunchPlugin, pb_launch_t>()
    private(set) var openURL = Roster<any OpenURLPlugin, pb_open_url_t>()
    private(set) var userActivity = Roster<any UserActivityPlugin, pb_user_activity_t>()
    private(set) var remoteNotifications = Roster<any RemoteNotificationPlugin, pb_remote_notifications_t>()
    private(set) var memory = Roster<any MemoryWarningPlugin, pb_memory_t>()
    private(set) var protectedData = Roster<any ProtectedDataPlugin, pb_protected_data_t>()
    private(set) var appState = Roster<any AppStatePlugin, pb_app_state_t>()
    private(set) var termination = Roster<any TerminationPlugin, pb_termination_t>()

    /// Adds `plugin`, refusing an id that is already registered and naming both sources.
    func add(_ plugin: any ApplicationPlugin, source: PluginSource) throws(LoadFailure) {
        let descriptor = plugin.descriptor
        if let refusal = contested[descriptor.id] { throw refusal }
        if let existing = sources[descriptor.id] {
            throw LoadFailure(.register, "duplicate plugin id '\(descriptor.id)' from \(source): already registered by \(existing)")
        }
        sources[descriptor.id] = source
        entries.append(Entry(plugin: plugin, descriptor: descriptor, concerns: plugin.concerns, source: source))
        isOrdered = false
    }

    /// Who registered `id`, if anyone.
    func source(of id: PluginID) -> PluginSource? {
        sources[id]
    }

    /// Removes `id`'s plugin for good: every later ``add(_:source:)`` of the id throws `refusal`.
    func withdraw(_ id: PluginID, refusal: LoadFailure) {
        sources[id] = nil
        entries.removeAll { $0.descriptor.id == id }
        contested[id] = refusal
        isOrdered = false
    }

    /// The refusal of an id ``withdraw(_:refusal:)`` took out, if it was.
    func refusal(forContested id: PluginID) -> LoadFailure? {
        contested[id]
    }

    /// Forgets every plugin and every withdrawn id.
    func removeAll() {
        self.entries = []
        sources = [:]
        contested = [:]
        isOrdered = false
        prepare()
    }

    /// Sorts the plugins into dispatch order and rebuilds the per-concern rosters,
    /// if a registration changed them since the last call.
    func prepare() {
        guard !isOrdered else { return }
        isOrdered = true
        entries.sort { PluginDescriptor.dispatchOrder($0.descriptor, $1.descriptor) }
        launch = roster(.launch, \.launch)
        openURL = roster(.openURL, \.openURL)
        userActivity = roster(.userActivity, \.userActivity)
        remoteNotifications = roster(.remoteNotifications, \.remoteNotifications)
        memory = roster(.memory, \.memory)
        protectedData = roster(.protectedData, \.protectedData)
        appState = roster(.appState, \.appState)
        termination = roster(.termination, \.termination)
    }

    private func roster<P, Table>(_ concern: PluginConcern,
                                  _ table: KeyPath<CPluginDefinition, Table?>) -> Roster<P, Table> {
        var ids: [PluginID] = []
        var plugins: [P] = []
        var callees: [Callee<Table>] = []
        for entry in entries where entry.concerns.contains(concern) {
            guard let plugin = entry.plugin as? P else { continue }
            ids.append(entry.descriptor.id)
            plugins.append(plugin)
            if let native = entry.plugin as? CPlugin, let vtable = native.definition[keyPath: table] {
                callees.append(Callee(table: vtable, ctx: native.definition.ctx))
            } else {
                callees.append(Callee(table: nil, ctx: nil))
            }
        }
        return Roster(ids: ids, plugins: plugins, callees: callees)
    }
}

/// One concern's participants in dispatch order, ready to call: a C plugin as
/// the copy of its vtable and its `ctx`, called directly (no existential, no
/// retain, no string conversion per plugin); a Swift plugin through its protocol.
///
/// A final class, so that an event takes it with one retain; reports keep
/// ``ids`` and refer to the participants by index.
final class Roster<Plugin, Table> {
    /// The participants' ids, in dispatch order.
    let ids: [PluginID]
    /// The participants as the concern's protocol, same order (C plugins through their adapter).
    let plugins: [Plugin]
    /// How the dispatcher calls each participant, same order.
    let callees: [Callee<Table>]

    init(ids: [PluginID] = [], plugins: [Plugin] = [], callees: [Callee<Table>] = []) {
        self.ids = ids
        self.plugins = plugins
        self.callees = callees
    }

    /// The number of participants.
    var count: Int { ids.count }
}

/// A participant as the dispatcher calls it: a C plugin's vtable (read to its
/// `struct_size`, missing slots NULL) and `ctx`, or, with no table, a Swift
/// plugin to call through ``Roster/plugins``.
struct Callee<Table> {
    /// The C plugin's vtable for the concern; nil for a Swift plugin.
    let table: Table?
    /// The C plugin's `ctx`.
    let ctx: UnsafeMutableRawPointer?
}
