/// The registered plugins of one host: ids unique, kept in dispatch order, and
/// split per concern so each event walks only the plugins that take part in it.
///
/// The per-concern lists are rebuilt once after registrations change, not per
/// event; an event reads one stored array and borrows its elements.
final class PluginRegistry {
    /// One plugin with the facts the host keeps about it.
    struct Entry {
        let plugin: any ApplicationPlugin
        let descriptor: PluginDescriptor
        let concerns: Set<PluginConcern>
        let source: PluginSource
    }

    /// A plugin as one concern's list holds it.
    struct Participant<Plugin> {
        let id: PluginID
        let plugin: Plugin
    }

    private(set) var entries: [Entry] = []
    private var sources: [PluginID: PluginSource] = [:]
    private var isOrdered = true

    private(set) var launch: [Participant<any LaunchPlugin>] = []
    private(set) var openURL: [Participant<any OpenURLPlugin>] = []
    private(set) var userActivity: [Participant<any UserActivityPlugin>] = []
    private(set) var remoteNotifications: [Participant<any RemoteNotificationPlugin>] = []
    private(set) var memory: [Participant<any MemoryWarningPlugin>] = []
    private(set) var protectedData: [Participant<any ProtectedDataPlugin>] = []
    private(set) var appState: [Participant<any AppStatePlugin>] = []
    private(set) var termination: [Participant<any TerminationPlugin>] = []

    /// Adds `plugin`, refusing an id that is already registered and naming both sources.
    func add(_ plugin: any ApplicationPlugin, source: PluginSource) throws(LoadFailure) {
        let descriptor = plugin.descriptor
        if let existing = sources[descriptor.id] {
            throw LoadFailure(.register, "duplicate plugin id '\(descriptor.id)' from \(source): already registered by \(existing)")
        }
        sources[descriptor.id] = source
        entries.append(Entry(plugin: plugin, descriptor: descriptor, concerns: plugin.concerns, source: source))
        isOrdered = false
    }

    /// Sorts the plugins into dispatch order and rebuilds the per-concern lists,
    /// if a registration changed them since the last call.
    func prepare() {
        guard !isOrdered else { return }
        isOrdered = true
        entries.sort { PluginDescriptor.dispatchOrder($0.descriptor, $1.descriptor) }
        launch = participants(.launch)
        openURL = participants(.openURL)
        userActivity = participants(.userActivity)
        remoteNotifications = participants(.remoteNotifications)
        memory = participants(.memory)
        protectedData = participants(.protectedData)
        appState = participants(.appState)
        termination = participants(.termination)
    }

    private func participants<P>(_ concern: PluginConcern) -> [Participant<P>] {
        entries.compactMap { entry in
            guard entry.concerns.contains(concern), let plugin = entry.plugin as? P else { return nil }
            return Participant(id: entry.descriptor.id, plugin: plugin)
        }
    }
}
