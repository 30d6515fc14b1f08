/// What one event did: the reduced answer, each call with its answer and
/// duration, and who decided. The report is the host's trace of "who did what".
///
/// Four words, so that a report comes back from a dispatch in registers: the calls are kept as
/// the dispatch loop left them (how many of the roster's members it called, in which order) and
/// derived when read; whatever an event rarely has lives in one optional object.
public struct EventReport: Sendable, Codable {
    /// The event, its answer and how the calls were made, in one word.
    private let shape: Shape
    /// Wall time from the first call to the reduced answer.
    public let nanoseconds: UInt64
    /// The event.
    public var event: LifecycleEvent.Kind { shape.event }
    /// The reduced answer.
    public var answer: EventAnswer { shape.answer }
    /// How many of the roster's members were called (compact reports).
    private var made: Int { shape.made }
    /// How each call's answer follows from ``decidedBy`` (compact reports).
    private var answers: CallAnswers { shape.answers }
    /// Whether the roster was called in reverse, and whether each call was timed (compact reports).
    private var order: CallOrder { shape.order }
    /// The roster's members, interned, never freed, and so referred to without a reference
    /// count; nil when the calls were recorded one by one (``Details/recorded``).
    private let members: Unmanaged<RosterMembers>?
    /// The durations of more than one timed call, or what most events do not have.
    private let extra: Extra?

    /// The calls made, in call order.
    ///
    /// The dispatcher records only what the policy cannot tell afterwards (how
    /// many plugins it called, and with ``CallTiming/perCall`` each duration);
    /// this array is built from that and the participants' ids each time it is
    /// read. Keep a copy when reading it more than once.
    public var calls: [PluginCall] {
        let made = details?.recorded ?? compactCalls
        let failures = failures
        guard !failures.isEmpty else { return made }
        let failed = Set(failures.map(\.plugin))
        return made.map { failed.contains($0.plugin) ? PluginCall(plugin: $0.plugin, answer: .failed, nanoseconds: $0.nanoseconds) : $0 }
    }
    /// The participants whose worker failed during the event: they count as if
    /// they had not answered (no veto, not handled, no notification answer).
    public var failures: [PluginFailure] { details?.failures ?? [] }
    /// Who decided: the vetoing plugins of a launch event, the handler of a URL or
    /// activity, the plugins whose answer became a notification's result.
    public var decidedBy: [PluginID] {
        if let details { return details.decidedBy }
        // Without details, a handler is the last plugin called; a vetoing plugin would have made details.
        guard answers == .falseUnlessDecided, answer == .bool(true), made > 0, let members else { return [] }
        return [members.takeUnretainedValue().ids[made - 1]]
    }
    /// Misuse the host noticed and ignored (late or repeated completions, unknown values).
    public var notes: [String] { details?.notes ?? [] }
    /// The plugins taking part in the event's concern that the host's policy denies it:
    /// not called, not counted (``PluginDecorator/authorization(_:)``).
    public var denied: [PluginID] { members?.takeUnretainedValue().denied ?? details?.denied ?? [] }
    /// The notifications delivered after the event's calls returned: those its
    /// callbacks posted, those posted since the last delivery, and those their observers posted.
    public var notifications: NotificationReport { details?.notifications ?? NotificationReport() }

    /// A report whose calls were recorded one by one.
    init(event: LifecycleEvent.Kind, answer: EventAnswer, calls: [PluginCall], decidedBy: [PluginID], notes: [String],
         failures: [PluginFailure] = [], denied: [PluginID] = [], nanoseconds: UInt64,
         notifications: NotificationReport = NotificationReport()) {
        let details = Details(decidedBy: decidedBy, failures: failures, notes: notes, denied: denied,
                              notifications: notifications, recorded: calls, durations: nil)
        self.init(shape: Shape(event: event, answer: answer, made: 0, answers: .returned, order: []),
                  nanoseconds: nanoseconds, members: nil, extra: .details(details))
    }

    /// A report of the first `made` calls of `members` in `order`, each answering as `answers`
    /// and `decidedBy` tell, with the `durations` of more than one timed call (one timed call's
    /// duration is `nanoseconds`). `decidedBy` is kept only when it does not follow from the rest.
    init(event: LifecycleEvent.Kind, answer: EventAnswer, members: Unmanaged<RosterMembers>, made: Int, answers: CallAnswers,
         order: CallOrder, durations: CallDurations?, decidedBy: consuming [PluginID]?, failures: consuming [PluginFailure]?,
         nanoseconds: UInt64) {
        let derived = decidedBy.map { answers == .falseUnlessDecided && $0.count == 1 } ?? true
        let extra: Extra? = if derived && failures == nil {
            durations.map { .durations($0) }
        } else {
            .details(Details(decidedBy: decidedBy ?? [], failures: failures ?? [], notes: [], denied: [],
                             notifications: NotificationReport(), recorded: nil, durations: durations))
        }
        self.init(shape: Shape(event: event, answer: answer, made: made, answers: answers, order: order),
                  nanoseconds: nanoseconds, members: members, extra: extra)
    }

    private init(shape: Shape, nanoseconds: UInt64, members: Unmanaged<RosterMembers>?, extra: Extra?) {
        self.shape = shape
        self.nanoseconds = nanoseconds
        self.members = members
        self.extra = extra
    }

    /// This report with `notifications`, delivered after its calls.
    func with(_ notifications: NotificationReport) -> EventReport {
        let details = Details(decidedBy: decidedBy, failures: failures, notes: notes, denied: self.details?.denied ?? [],
                              notifications: notifications, recorded: self.details?.recorded, durations: durations)
        return EventReport(shape: shape, nanoseconds: nanoseconds, members: members, extra: .details(details))
    }

    /// The answer as a Bool, for launch, URL and activity events.
    public var accepted: Bool? {
        if case .bool(let value) = answer { value } else { nil }
    }

    /// The rare part of a report, if it has one.
    private var details: Details? {
        if case .details(let details)? = extra { details } else { nil }
    }

    /// The durations of the calls, when more than one was timed.
    private var durations: CallDurations? {
        switch extra {
        case .durations(let durations)?: durations
        case .details(let details)?: details.durations
        case nil: nil
        }
    }

    /// The calls of a compact report, in call order.
    private var compactCalls: [PluginCall] {
        guard let members else { return [] }
        let ids = members.takeUnretainedValue().ids
        let decidedBy = decidedBy
        let durations = durations
        let made = made
        var calls: [PluginCall] = []
        calls.reserveCapacity(made)
        let last = ids.count - 1
        for step in 0..<made {
            let id = ids[order.contains(.reversed) ? last - step : step]
            let answer: PluginAnswer = switch answers {
            case .returned: .returned
            case .trueUnlessDecided: .bool(!decidedBy.contains(id))
            case .falseUnlessDecided: .bool(decidedBy.contains(id))
            }
            let duration: UInt64? = order.contains(.timed) ? durations?[step] ?? nanoseconds : nil
            calls.append(PluginCall(plugin: id, answer: answer, nanoseconds: duration))
        }
        return calls
    }

    /// The event, its answer and how a compact report's calls were made, packed in one word that a
    /// report's construction writes at once: written as five fields one by one and read back as the
    /// word they make, they stalled the read (a store forward that fails).
    private struct Shape: Sendable {
        /// `made` in bits 0–31, then a byte each: the event, the answer, `answers`, `order`.
        private let bits: UInt64

        init(event: LifecycleEvent.Kind, answer: EventAnswer, made: Int, answers: CallAnswers, order: CallOrder) {
            bits = UInt64(UInt32(clamping: made)) | UInt64(event.rawValue) << 32 | UInt64(answer.code) << 40
                | UInt64(answers.rawValue) << 48 | UInt64(order.rawValue) << 56
        }

        var made: Int { Int(UInt32(truncatingIfNeeded: bits)) }
        // The bytes come from the initializer alone, so each is a valid value.
        var event: LifecycleEvent.Kind { LifecycleEvent.Kind(rawValue: byte(32)) ?? .memoryWarning }
        var answer: EventAnswer { EventAnswer(code: byte(40)) }
        var answers: CallAnswers { CallAnswers(rawValue: byte(48)) ?? .returned }
        var order: CallOrder { CallOrder(rawValue: byte(56)) }

        private func byte(_ shift: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: bits >> shift) }
    }

    /// The durations of more than one timed call, or the details.
    private enum Extra: Sendable {
        case durations(CallDurations)
        case details(Details)
    }

    /// What most events do not have, kept apart so that an event without any costs one nil: a report
    /// is made for every event, and each array in it is reference counted when it is made,
    /// copied and destroyed.
    private final class Details: Sendable {
        /// Who decided, when it does not follow from the calls.
        let decidedBy: [PluginID]
        let failures: [PluginFailure]
        let notes: [String]
        /// The denied plugins of a recorded report (a compact one's are its members').
        let denied: [PluginID]
        let notifications: NotificationReport
        /// Each call with its answer and duration, for a report recorded one call at a time.
        let recorded: [PluginCall]?
        /// The durations of more than one timed call.
        let durations: CallDurations?

        init(decidedBy: [PluginID], failures: [PluginFailure], notes: [String], denied: [PluginID],
             notifications: NotificationReport, recorded: [PluginCall]?, durations: CallDurations?) {
            self.decidedBy = decidedBy
            self.failures = failures
            self.notes = notes
            self.denied = denied
            self.notifications = notifications
            self.recorded = recorded
            self.durations = durations
        }
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
                  calls: try container.decode([PluginCall].self, forKey: .calls),
                  decidedBy: try container.decode([PluginID].self, forKey: .decidedBy),
                  notes: try container.decode([String].self, forKey: .notes),
                  failures: try container.decode([PluginFailure].self, forKey: .failures),
                  denied: try container.decodeIfPresent([PluginID].self, forKey: .denied) ?? [],
                  nanoseconds: try container.decode(UInt64.self, forKey: .nanoseconds),
                  notifications: try container.decode(NotificationReport.self, forKey: .notifications))
    }
}

/// How a compact report's answers follow from its `decidedBy`; ids are
/// unique in a host, so an id names one call.
enum CallAnswers: UInt8, Sendable {
    /// Broadcasts: every call returned.
    case returned
    /// Call all, AND: a call answered false exactly when its plugin vetoed (is in `decidedBy`).
    case trueUnlessDecided
    /// First true wins: a call answered true exactly when its plugin handled the event (is in `decidedBy`).
    case falseUnlessDecided
}

/// How a compact report's calls were made.
struct CallOrder: OptionSet, Sendable {
    let rawValue: UInt8
    /// The roster's members were called last first (the last `made` of them).
    static let reversed = CallOrder(rawValue: 1)
    /// Each call was timed (``CallTiming/perCall``).
    static let timed = CallOrder(rawValue: 2)
}

extension CallOrder {
    /// The order of calls made last first when `reversed`, each timed when `timed`.
    init(reversed: Bool, timed: Bool) {
        rawValue = (reversed ? CallOrder.reversed.rawValue : 0) | (timed ? CallOrder.timed.rawValue : 0)
    }
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

extension EventAnswer {
    /// The answer in one byte, for a report's packed word: none 0, false 1, true 2, then each fetch result.
    fileprivate var code: UInt8 {
        switch self {
        case .none: 0
        case .bool(let value): value ? 2 : 1
        case .fetch(.newData): 3
        case .fetch(.noData): 4
        case .fetch(.failed): 5
        }
    }

    /// The answer of `code`, as ``code`` gives it.
    fileprivate init(code: UInt8) {
        self = switch code {
        case 1: .bool(false)
        case 2: .bool(true)
        case 3: .fetch(.newData)
        case 4: .fetch(.noData)
        case 5: .fetch(.failed)
        default: .none
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
