@_exported import PlugboardSDK

/// Gives a plugin type C entries of its own: the host's calls reach its methods directly, inlined,
/// as fast as a plugin written in C, where the SDK's shared entries go through a protocol witness
/// (BENCHMARKS.md, "Swift plugins"). Attach it to the plugin's struct, class or enum:
///
/// ```swift
/// @Plugin
/// struct GreeterPlugin: OpenURLPlugin { … }
/// ```
///
/// Every concern the type conforms to is served, wherever the conformance is declared. A generic
/// type cannot have entries of its own (the macro says so); a subclass of a `@Plugin` class uses the
/// shared entries. Its cost is at build time: the macro needs swift-syntax, built with the plugin.
@attached(extension, conformances: PluginEntryProviding, names: named(pluginEntries))
public macro Plugin() = #externalMacro(module: "PlugboardMacroPlugin", type: "PluginMacro")
