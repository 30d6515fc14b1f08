/// What one event did: the reduced answer, each call with its answer and
/// duration, and who decided. The report is the host's trace of "who did what".
public struct EventReport: Sendable, Codable {
    /// The event.
    public let event: LifecycleEvent.Kind
    /// The reduced answer.
    public let answer: EventAnswer
    /// The calls made, in call order.
    ///
    /// The dispatcher records only what the policy cannot tell afterwards (how
    /// many plugins it called, and with ``CallTiming/perCall`` each duration);
    /// this array is built from that and the participants' ids each time it is
    /// read. Keep a copy when reading it more than once.
    public var calls: [PluginCall] {
        let made = trace.calls(decidedBy: decidedBy)
        guard !failures.isEmpty else { return made }
        let failed = Set(failures.map(\.plugin))
        return made.map { failed.contains($0.plugin) ? PluginCall(plugin: $0.plugin, answer: .failed, nanoseconds: $0.nanoseconds) : $0 }
    }
    /// The participants whose worker failed during the event: they count as if
    /// they had not answered (no veto, not handled, no notification answer).
    public var failures: [PluginFailure] { exceptions?.failures ?? [] }
    /// Who decided: the vetoing plugins of a launch event, the handler of a URL or
    /// activity, the plugins whose answer became a notification's result.
    public let decidedBy: [PluginID]
    /// Misuse the host noticed and ignored (late or repeated completions, unknown values).
    public var notes: [String] { exceptions?.notes ?? [] }
    /// The plugins taking part in the event's concern that the host's policy denies it:
    /// not called, not counted (``PluginDecorator/authorization(_:)``).
    public var denied: [PluginID] { exceptions?.denied ?? [] }
    /// Wall time from the first call to the reduced answer.
    public let nanoseconds: UInt64
    /// The notifications delivered after the event's calls returned: those its
    /// callbacks posted, those posted since the last delivery, and those their observers posted.
    public var notifications: NotificationReport { exceptions?.notifications ?? NotificationReport() }
    /// The calls as the dispatcher recorded them.
    let trace: CallTrace
    /// What most events do not have, kept apart so that an event without any costs one nil: a report
    /// is made for every event, and each array in it is a reference counted when it is made,
    /// copied and destroyed.
    private let exceptions: Exceptions?

    /// Failures, notes, denials and notifications, when one of them is not empty.
    private final class Exceptions: Sendable {
        let failures: [PluginFailure]
        let notes: [String]
        let denied: [PluginID]
        let notifications: NotificationReport

        /// The four, or nil when all are empty.
        static func of(failures: [PluginFailure], notes: [String], denied: [PluginID],
                       notifications: NotificationReport) -> Exceptions? {
            if failures.isEmpty && notes.isEmpty && denied.isEmpty && notifications.isEmpty { return nil }
            return Exceptions(failures: failures, notes: notes, denied: denied, notifications: notifications)
        }

        private init(failures: [PluginFailure], notes: [String], denied: [PluginID], notifications: NotificationReport) {
            self.failures = failures
            self.notes = notes
            self.denied = denied
            self.notifications = notifications
        }
    }

    /// A report whose calls were recorded one by one.
    init(event: LifecycleEvent.Kind, answer: EventAnswer, calls: [PluginCall], decidedBy: [PluginID], notes: [String],
         failures: [PluginFailure] = [], denied: [PluginID] = [], nanoseconds: UInt64) {
        self.init(event: event, answer: answer, trace: .recorded(calls), decidedBy: decidedBy, notes: notes,
                  failures: failures, denied: denied, nanoseconds: nanoseconds)
    }

    /// A report whose calls follow from `trace` and `decidedBy`.
    init(event: LifecycleEvent.Kind, answer: EventAnswer, trace: CallTrace, decidedBy: [PluginID], notes: [String] = [],
         failures: [PluginFailure] = [], denied: [PluginID] = [], nanoseconds: UInt64,
         notifications: NotificationReport = NotificationReport()) {
        self.event = event
        self.answer = answer
        self.trace = trace
        self.decidedBy = decidedBy
        self.nanoseconds = nanoseconds
        exceptions = .of(failures: failures, notes: notes, denied: denied, notifications: notifications)
    }

    /// This report with `notifications`, delivered after its calls.
    func with(_ notifications: NotificationReport) -> EventReport {
        EventReport(event: event, answer: answer, trace: trace, decidedBy: decidedBy, notes: notes, failures: failures,
                    denied: denied, nanoseconds: nanoseconds, notifications: notifications)
    }

    /// The answer as a Bool, for launch, URL and activity events.
    public var accepted: Bool? {
        if case .bool(let value) = answer { value } else { nil }
    }

    private enum CodingKeys: String, CodingKey {
        case event, answer, calls, decidedBy, notes, failures, denied, nanoseconds, notifications
    }

    /// Encodes the report with the keys `event`, `answer`, `calls`, `decidedBy`, `notes`, `failures`,
    /// `denied` (only when a plugin was), `nanoseconds` and `notifications`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(event, forKey: .event)
        try container.encode(answer, forKey: .answer)
        try container.encode(calls, forKey: .calls)
        try container.encode(decidedBy, forKey: .decidedBy)
        try container.encode(notes, forKey: .notes)
        try container.encode(failures, forKey: .failures)
        if !denied.isEmpty { try container.encode(denied, forKey: .denied) }
        try container.encode(nanoseconds, forKey: .nanoseconds)
        try container.encode(notifications, forKey: .notifications)
    }

    /// Decodes what ``encode(to:)`` wrote (`denied` may be missing): the calls as recorded.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(event: try container.decode(LifecycleEvent.Kind.self, forKey: .event),
                  answer: try container.decode(EventAnswer.self, forKey: .answer),
                  trace: .recorded(try container.decode([PluginCall].self, forKey: .calls)),
                  decidedBy: try container.decode([PluginID].self, forKey: .decidedBy),
                  notes: try container.decode([String].self, forKey: .notes),
                  failures: try container.decode([PluginFailure].self, forKey: .failures),
                  denied: try container.decodeIfPresent([PluginID].self, forKey: .denied) ?? [],
                  nanoseconds: try container.decode(UInt64.self, forKey: .nanoseconds),
                  notifications: try container.decode(NotificationReport.self, forKey: .notifications))
    }
}

/// The calls of one event as the dispatcher recorded them.
enum CallTrace: Sendable {
    /// Each call with its answer and duration (remote notifications).
    case recorded([PluginCall])
    /// The first `made` of the roster's members in dispatch order (or the last ones,
    /// in reverse order, when `reversed`), each answer following from the policy
    /// and the report's `decidedBy`, and, when timed per call, each duration in call order.
    /// The members are interned, never freed, and so referred to without a reference count.
    case compact(Unmanaged<RosterMembers>, made: Int, reversed: Bool, answers: CallAnswers, durations: CallDurations?)

    /// The calls, in call order.
    func calls(decidedBy: [PluginID]) -> [PluginCall] {
        switch self {
        case .recorded(let calls):
            return calls
        case .compact(let interned, let made, let reversed, let answers, let durations):
            let members = interned.takeUnretainedValue()
            var calls: [PluginCall] = []
            calls.reserveCapacity(made)
            let last = members.count - 1
            members.ids.withUnsafeBufferPointer { ids in
                for step in 0..<made {
                    let id = ids[reversed ? last - step : step]
                    let answer: PluginAnswer = switch answers {
                    case .returned: .returned
                    case .trueUnlessDecided: .bool(decidedBy.isEmpty || !decidedBy.contains(id))
                    case .falseUnlessDecided: .bool(!decidedBy.isEmpty && decidedBy.contains(id))
                    }
                    calls.append(PluginCall(plugin: id, answer: answer, nanoseconds: durations?[step]))
                }
            }
            return calls
        }
    }
}

/// How a compact trace's answers follow from the report's `decidedBy`; ids are
/// unique in a host, so an id names one call.
enum CallAnswers: Sendable {
    /// Broadcasts: every call returned.
    case returned
    /// Call all, AND: a call answered false exactly when its plugin vetoed (is in `decidedBy`).
    case trueUnlessDecided
    /// First true wins: a call answered true exactly when its plugin handled the event (is in `decidedBy`).
    case falseUnlessDecided
}

/// The reduced answer of an event.
public enum EventAnswer: Sendable, Equatable, Codable {
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

    /// Decodes what ``encode(to:)`` wrote: null, a Bool or a fetch result.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .none
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else {
            self = .fetch(try container.decode(FetchResult.self))
        }
    }
}

/// One plugin's part in an event.
public struct PluginCall: Sendable, Codable {
    /// The plugin called.
    public let plugin: PluginID
    /// What it answered.
    public let answer: PluginAnswer
    /// How long the call took; for a notification, until its completion (or the deadline).
    /// Nil when the host times only whole events (``CallTiming/perEvent``).
    public let nanoseconds: UInt64?
}

/// What one plugin answered.
public enum PluginAnswer: Sendable, Equatable, Codable, CustomStringConvertible {
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
    /// Its worker failed during the call (see ``EventReport/failures``).
    case failed

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .returned: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .fetch(let value): try container.encode(value)
        case .timedOut: try container.encode("timed-out")
        case .notTakingPart: try container.encode("not-taking-part")
        case .failed: try container.encode("failed")
        }
    }

    /// Decodes what ``encode(to:)`` wrote, as an event's answer unless it is `timed-out` or
    /// `not-taking-part`. `failed` reads as the fetch result: a report's ``EventReport/calls``
    /// answer ``failed`` for the plugins in its failures.
    public init(from decoder: any Decoder) throws {
        switch try? decoder.singleValueContainer().decode(String.self) {
        case "timed-out": self = .timedOut
        case "not-taking-part": self = .notTakingPart
        default:
            switch try EventAnswer(from: decoder) {
            case .none: self = .returned
            case .bool(let value): self = .bool(value)
            case .fetch(let result): self = .fetch(result)
            }
        }
    }

    /// In words, as reports and trace lines show it: "returned", "true", "new-data", "timed out",
    /// "not taking part", "failed".
    public var description: String {
        switch self {
        case .returned: "returned"
        case .bool(let value): String(value)
        case .fetch(let result): result.rawValue
        case .timedOut: "timed out"
        case .notTakingPart: "not taking part"
        case .failed: "failed"
        }
    }
}

/// A participant whose worker failed during an event, with the one-line reason.
public struct PluginFailure: Error, Sendable, Codable {
    /// The plugin.
    public let plugin: PluginID
    /// "com.example.x crashed with SIGSEGV in open_url (libx.so)".
    public let message: String
}
