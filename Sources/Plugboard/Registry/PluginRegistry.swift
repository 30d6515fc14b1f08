/// The registered plugins of one host: ids unique, kept in dispatch order, and
/// split per concern so each event walks only the plugins that take part in it.
struct PluginRegistry {
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

    /// The per-concern lists, in dispatch order.
    struct Participants {
        var launch: [Participant<any LaunchPlugin>] = []
        var openURL: [Participant<any OpenURLPlugin>] = []
        var userActivity: [Participant<any UserActivityPlugin>] = []
        var remoteNotifications: [Participant<any RemoteNotificationPlugin>] = []
        var memory: [Participant<any MemoryWarningPlugin>] = []
        var protectedData: [Participant<any ProtectedDataPlugin>] = []
        var appState: [Participant<any AppStatePlugin>] = []
        var termination: [Participant<any TerminationPlugin>] = []
    }

    private(set) var entries: [Entry] = []
    private var sources: [PluginID: PluginSource] = [:]
    private var cached: Participants?

    /// Adds `plugin`, refusing an id that is already registered and naming both sources.
    mutating func add(_ plugin: any ApplicationPlugin, source: PluginSource) throws(LoadFailure) {
        let descriptor = plugin.descriptor
        if let existing = sources[descriptor.id] {
            throw LoadFailure(.register, "duplicate plugin id '\(descriptor.id)' from \(source): already registered by \(existing)")
        }
        sources[descriptor.id] = source
        entries.append(Entry(plugin: plugin, descriptor: descriptor, concerns: plugin.concerns, source: source))
        cached = nil
    }

    /// The plugins in dispatch order.
    mutating func ordered() -> [Entry] {
        _ = participants()
        return entries
    }

    /// The per-concern lists, rebuilt only after a registration changed them.
    mutating func participants() -> Participants {
        if let cached { return cached }
        entries.sort { PluginDescriptor.dispatchOrder($0.descriptor, $1.descriptor) }
        var lists = Participants()
        func take<P>(_ concern: PluginConcern, _ entry: Entry, _ list: inout [Participant<P>]) {
            if entry.concerns.contains(concern), let plugin = entry.plugin as? P {
                list.append(Participant(id: entry.descriptor.id, plugin: plugin))
            }
        }
        for entry in entries {
            take(.launch, entry, &lists.launch)
            take(.openURL, entry, &lists.openURL)
            take(.userActivity, entry, &lists.userActivity)
            take(.remoteNotifications, entry, &lists.remoteNotifications)
            take(.memory, entry, &lists.memory)
            take(.protectedData, entry, &lists.protectedData)
            take(.appState, entry, &lists.appState)
            take(.termination, entry, &lists.termination)
        }
        cached = lists
        return lists
    }
}
