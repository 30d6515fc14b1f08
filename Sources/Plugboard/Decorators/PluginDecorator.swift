/// A host-side wrapper around every plugin call, added at the composition root
/// (``PluginHost/init(timing:fileFacade:callTimeout:isolation:sandbox:restarts:decorators:logHandler:outputHandler:)``)
/// without the plugin knowing: the same for C, C++, Rust and Swift plugins, in
/// process or in a worker, because decorators sit on the host's side of the one call path.
///
/// They stack in one fixed order, whatever order they are given in, outermost first:
/// ``authorization(_:)`` → ``tracing(_:)`` → ``threadConfinement`` → the plugin.
/// So a call the policy denies is never traced (its denial is logged instead), and
/// tracing sees calls as the plugin gets them. Giving one kind twice: the last
/// authorization counts, tracing traces the union of the plugins named.
public enum PluginDecorator: Sendable {
    /// Delivers a concern only to the plugins the policy allows it (the others are
    /// reported as denied, with a log line; a plugin denied `saved-state` is neither
    /// restored nor saved) and answers a denied host service call
    /// (files, invoke, post, observe) with
    /// `PB_ERR_DENIED` and a log line.
    case authorization(AccessPolicy)
    /// Logs every call to the plugins named, at level debug: the callback, its
    /// arguments (escaped, long values cut), the answer and the duration. Every call
    /// means event callbacks, functions, each notification delivered to an observer, and
    /// `save_state`/`restore_state`, in process and in workers.
    case tracing(TracedPlugins)
    /// Hands log lines and notification completions that plugin threads send to the
    /// dispatch thread (the thread that delivers events): they are queued and
    /// delivered after each event (and after each notification delivery and saved-state
    /// call), and while the dispatch thread waits for a remote notification's answer.
    /// A message from the dispatch thread itself passes at once.
    case threadConfinement
}

/// Which plugins ``PluginDecorator/tracing(_:)`` traces.
public enum TracedPlugins: Sendable, Equatable {
    /// Every plugin.
    case all
    /// The plugins with these ids.
    case only(Set<PluginID>)

    /// Whether `id` is traced.
    func contains(_ id: PluginID) -> Bool {
        switch self {
        case .all: true
        case .only(let ids): ids.contains(id)
        }
    }

    /// Both sets of plugins.
    func union(_ other: TracedPlugins) -> TracedPlugins {
        switch (self, other) {
        case (.only(let mine), .only(let theirs)): .only(mine.union(theirs))
        default: .all
        }
    }
}
