/// One import for a plugin author: the plugin protocols, the C types of the entry symbol
/// (`pb_entry_t`) and swift-log's `Logger`.
@_exported import CPlugboard
@_exported import Logging
@_exported import PlugboardPluginAPI
