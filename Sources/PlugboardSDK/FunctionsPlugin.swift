import PlugboardPluginAPI

/// A plugin that offers functions to be called by name; the SDK declares them with the plugin.
public protocol FunctionsPlugin: ApplicationPlugin {
    /// The plugin's functions, read once when the library registers its plugins.
    var functions: [PluginFunction] { get }
}
