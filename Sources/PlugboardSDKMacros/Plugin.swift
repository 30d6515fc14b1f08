@_exported import PlugboardSDK

/// Gives a plugin type C entries of its own: the host's calls reach its methods directly, inlined,
/// near the speed of a plugin written in C, where the SDK's shared entries go through a protocol
/// witness (BENCHMARKS.md, "Swift plugins"). Attach it to the plugin's struct, class or enum:
///
/// ```swift
/// @Plugin
/// struct GreeterPlugin: OpenURLPlugin { … }
/// ```
///
/// Every concern the type conforms to in its module is served directly, wherever in the module the
/// conformance is declared; one declared in another module, or adopted only by a subclass, is
/// served as the shared entries serve it. A generic type (or one nested in a generic type) cannot
/// have entries of its own: the macro says so. Its cost is at build time: the macro needs
/// swift-syntax, built with the plugin.
@attached(extension, conformances: PluginEntryProviding, names: named(pluginEntries))
public macro Plugin() = #externalMacro(module: "PlugboardMacroPlugin", type: "PluginMacro")
