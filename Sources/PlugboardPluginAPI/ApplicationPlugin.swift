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
        Set(PluginConcern.allCases.filter { $0.isAdopted(by: self) })
    }
}
