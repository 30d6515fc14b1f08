/// A plugin: one small piece of application behaviour, for one or more concerns.
///
/// Conform to this and to the concern protocols you take part in
/// (``LaunchPlugin``, ``OpenURLPlugin``, …); the host sends each event only to
/// the plugins of its concern. Lifecycle calls come on the host's one dispatch
/// thread, one at a time.
///
/// Text: each method that carries text or bytes comes in two forms. The host calls the borrowed
/// one, which lends them for the call as ``TextSpan`` (bytes as `Span<UInt8>`): no copy, no
/// allocation and no call, valid until the method returns (`String(copying:)` keeps a copy). Its default copies
/// them into a `String` (or an array) and calls the other form, which is the one to implement
/// when convenience matters more than a copy per call. Text that is not UTF-8 arrives repaired
/// with U+FFFD.
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
