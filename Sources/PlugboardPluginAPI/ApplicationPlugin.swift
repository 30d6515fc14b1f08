/// A plugin: one small piece of application behaviour, for one or more concerns.
///
/// Conform to this and to the concern protocols you take part in
/// (``LaunchPlugin``, ``OpenURLPlugin``, …); the host sends each event only to
/// the plugins of its concern. Lifecycle calls come on the host's one dispatch
/// thread, one at a time.
public protocol ApplicationPlugin {
    /// Who the plugin is.
    var descriptor: PluginDescriptor { get }
    /// The concerns this plugin takes part in; by default, the concern protocols it conforms to.
    var concerns: Set<PluginConcern> { get }
}

extension ApplicationPlugin {
    /// The concern protocols this plugin conforms to.
    public var concerns: Set<PluginConcern> {
        var result = Set<PluginConcern>()
        if self is any LaunchPlugin { result.insert(.launch) }
        if self is any OpenURLPlugin { result.insert(.openURL) }
        if self is any UserActivityPlugin { result.insert(.userActivity) }
        if self is any RemoteNotificationPlugin { result.insert(.remoteNotifications) }
        if self is any MemoryWarningPlugin { result.insert(.memory) }
        if self is any ProtectedDataPlugin { result.insert(.protectedData) }
        if self is any AppStatePlugin { result.insert(.appState) }
        if self is any TerminationPlugin { result.insert(.termination) }
        if self is any SavedStatePlugin { result.insert(.savedState) }
        return result
    }
}
