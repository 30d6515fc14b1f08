/// One participant of a concern as the dispatcher reaches it. Every policy
/// loop takes participants and switches on how each is reached; each event
/// calls a participant through ``LifecycleEvent``'s own calls, so no event is
/// written once per kind of plugin.
///
/// A plain value (no retain, no existential), so the dispatch loop copies
/// it for free; a Swift conformance stays in its roster's ``Roster/conformances``.
enum Participant<Table> {
    /// A C plugin in this process: its vtable of the concern, of its C type (read to the plugin's
    /// `struct_size`, missing slots NULL), its `ctx`, and the library that owns its completion
    /// handles. Called straight through the slots: no existential, no retain, arguments
    /// converted to C once per event.
    case native(Table, ctx: UnsafeMutableRawPointer?, library: Unmanaged<LoadedLibrary>)
    /// A Swift conformance in this process, called through its protocol: the
    /// index of the conformance in the roster's ``Roster/conformances``.
    case swift(conformance: Int)
    /// A C plugin in a worker process, called through the worker's channel.
    case worker(WorkerPlugin)

    /// Whether this is a C plugin in this process.
    var isNative: Bool {
        if case .native = self { true } else { false }
    }
}

/// How a registered plugin is implemented, from which each concern's
/// ``Participant`` is made.
enum PluginImplementation {
    /// A plugin a loaded C library added (kept alive by the host's library list).
    case native(CPluginDefinition, LoadedLibrary)
    /// A Swift plugin registered in code.
    case swift(any ApplicationPlugin)
    /// A plugin a worker process loaded, with the concerns its load report named.
    case worker(WorkerPlugin)
}
