/// The plugin protocols (``ApplicationPlugin`` and its concerns) live in `PlugboardPluginAPI`,
/// which the Swift plugin SDK shares; the host re-exports them, so `import Plugboard` is enough.
@_exported import PlugboardPluginAPI
