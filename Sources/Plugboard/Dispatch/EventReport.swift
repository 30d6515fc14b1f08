/// What one event did: the reduced answer, each call with its answer and
/// duration, and who decided. The report is the host's trace of "who did what".
public struct EventReport: Sendable, Encodable {
    /// The event.
    public let event: LifecycleEvent
    /// The reduced answer.
    public let answer: EventAnswer
    /// The calls made, in call order.
    public let calls: [PluginCall]
    /// Who decided: the vetoing plugins of a launch event, the handler of a URL or
    /// activity, the plugins whose answer became a notification's result.
    public let decidedBy: [PluginID]
    /// Misuse the host noticed and ignored (late or repeated completions, unknown values).
    public let notes: [String]
    /// Wall time from the first call to the reduced answer.
    public let nanoseconds: UInt64

    /// The answer as a Bool, for launch, URL and activity events.
    public var accepted: Bool? {
        if case .bool(let value) = answer { value } else { nil }
    }
}

/// The reduced answer of an event.
public enum EventAnswer: Sendable, Equatable, Encodable {
    /// Broadcast events have none.
    case none
    /// Launch (AND), URL and activity (first true).
    case bool(Bool)
    /// Remote notification.
    case fetch(FetchResult)

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .none: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .fetch(let value): try container.encode(value)
        }
    }
}

/// One plugin's part in an event.
public struct PluginCall: Sendable, Encodable {
    /// The plugin called.
    public let plugin: PluginID
    /// What it answered.
    public let answer: PluginAnswer
    /// How long the call took; for a notification, until its completion (or the deadline).
    /// Nil when the host times only whole events (``CallTiming/perEvent``).
    public let nanoseconds: UInt64?
}

/// What one plugin answered.
public enum PluginAnswer: Sendable, Equatable, Encodable {
    /// A broadcast call returned.
    case returned
    /// A Bool answer.
    case bool(Bool)
    /// A notification answer.
    case fetch(FetchResult)
    /// No notification answer before the deadline.
    case timedOut
    /// The plugin takes part in the concern but not in this event (a NULL C slot).
    case notTakingPart

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .returned: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .fetch(let value): try container.encode(value)
        case .timedOut: try container.encode("timed-out")
        case .notTakingPart: try container.encode("not-taking-part")
        }
    }
}
