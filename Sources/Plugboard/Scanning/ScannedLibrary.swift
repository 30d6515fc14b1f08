/// One file of a listing made through the ``ScanCache``: its report, and whether the
/// report came from the cache (nothing of the library was loaded) or from a scan now.
public struct ScannedLibrary: Sendable {
    /// The file's report, as ``PluginHost/loadPlugins(from:trust:)`` gives it.
    public var report: LoadReport
    /// True when the report was answered from the cache.
    public let cached: Bool
}
