/// A host's decorators (``PluginDecorator``) as the values its ``PluginCallSite`` runs, made
/// once from the list the host was given: every call path reaches them through the call site.
///
/// Each kind is present at most once, in its fixed place: authorization, outermost, decides
/// who is called (when the rosters are built) and logs whom it kept out; thread confinement,
/// innermost, delivers what plugin threads sent after the calls; tracing, between them, logs the
/// calls after that, so a trace line follows everything its call did.
struct CallDecorators: Sendable {
    /// The authorization decorator, if the host has one.
    let authorization: CallAuthorization?
    /// The tracing decorator, if the host has one.
    let tracer: CallTracer?
    /// The thread-confinement decorator, if the host has one.
    let confinement: DispatchThreadConfinement?
    /// Whether ``tracer`` and ``confinement`` are present: the per-event form's checks, Bools
    /// where an optional's test would copy it.
    let traces: Bool, confines: Bool

    /// The decorators `decorators` name, whatever their order: the last authorization counts,
    /// tracing traces the union of the plugins named. Denials, trace lines and
    /// counts of dropped lines (thread confinement) go to `log`.
    init(_ decorators: [PluginDecorator], log: @escaping PluginHost.LogHandler) {
        var policy: AccessPolicy?
        var traced: TracedPlugins?
        var confined = false
        for decorator in decorators {
            switch decorator {
            case .authorization(let given): policy = given
            case .tracing(let plugins): traced = traced.map { $0.union(plugins) } ?? plugins
            case .threadConfinement: confined = true
            }
        }
        authorization = policy.map { CallAuthorization(policy: $0, log: log) }
        tracer = traced.map { CallTracer(plugins: $0, log: log) }
        confinement = confined ? DispatchThreadConfinement(dropNotes: log) : nil
        traces = traced != nil
        confines = confined
    }
}

/// ``PluginDecorator/authorization(_:)`` at call time: the registry leaves the plugins its
/// policy denies a concern out of the concern's roster; this logs them, once per event or
/// saved-state operation.
final class CallAuthorization: Sendable {
    /// The policy.
    let policy: AccessPolicy
    /// Where the denials go (the host's log).
    let log: PluginHost.LogHandler

    /// Logs each plugin of `denied` as kept out of its `callback` (a call of `concern`).
    func logDenials(_ callback: StaticString, _ concern: PluginConcern, _ denied: [PluginID]) {
        for id in denied {
            log(PluginLogRecord(source: HostIdentity.name, plugin: id.rawValue, level: .info,
                                message: "\(callback) not delivered: the policy '\(policy.source)' denies \(id) \(concern.rawValue)"))
        }
    }

    /// The authorization of `policy`, its denials logged to `log`. A class, as the tracer: the
    /// call site holds one reference, not the policy's storage.
    init(policy: AccessPolicy, log: @escaping PluginHost.LogHandler) {
        self.policy = policy
        self.log = log
    }
}
