/// What one delivery of the notification queue did: each delivery with its
/// duration, the notifications nobody observed and those dropped for their depth.
public struct NotificationReport: Sendable, Codable, Equatable {
    /// Each observer called, in call order.
    public internal(set) var deliveries: [NotificationDelivery] = []
    /// The notifications that had no observer (counted, not an error).
    public internal(set) var unobserved: [PostedNotification] = []
    /// The notifications dropped because they were posted deeper than the limit
    /// (`PB_NOTIFICATION_DEPTH_MAX`): observers posting to each other without end.
    public internal(set) var dropped: [PostedNotification] = []
    /// Why the delivery stopped before the queue was empty, if it did; ``undelivered`` lists what was left.
    public internal(set) var stopped: DeliveryStop?
    /// The notifications left in the queue when the delivery stopped, dropped.
    public internal(set) var undelivered: [PostedNotification] = []

    /// The most deliveries one delivery of the queue makes (it stops after the notification that
    /// reaches it): 16 times the queue's limit, room for every notification that can wait to reach
    /// every depth, and a bound on the time and memory of observers that fan out to each other.
    public static let deliveryLimit = NotificationBus.queueLimit * NotificationBus.depthLimit

    /// True when nothing was posted.
    public var isEmpty: Bool { deliveries.isEmpty && unobserved.isEmpty && dropped.isEmpty && undelivered.isEmpty }

    /// Appends `other`'s entries after this report's.
    mutating func append(_ other: NotificationReport) {
        deliveries += other.deliveries
        unobserved += other.unobserved
        dropped += other.dropped
        stopped = stopped ?? other.stopped
        undelivered += other.undelivered
    }
}

/// Why a delivery of the notification queue stopped before the queue was empty.
public enum DeliveryStop: String, Sendable, Codable {
    /// It made ``NotificationReport/deliveryLimit`` deliveries: observers that post to each other, fanning out.
    case deliveryLimit = "delivery-limit"
    /// The host was asked to stop (``PluginHost/interruption``: a signal, in `plugboard run`).
    case interrupted
}

/// One notification handed to one observer.
public struct NotificationDelivery: Sendable, Codable, Equatable {
    /// The notification's name.
    public let name: String
    /// Who posted it: a plugin id, or "plugboard" for the host or an events script.
    public let sender: String
    /// Who received it: the observing plugin's id, or "plugboard" for an observer of the host's embedding API.
    public let receiver: String
    /// 1 for a notification posted outside an observer; one more for each observer it was posted from.
    public let depth: Int
    /// How long the observer took; nil when the host times only whole events, or the call failed before it was timed.
    public let nanoseconds: UInt64?
    /// Why the call failed (the observer's worker crashed, exited or hung); nil when it returned.
    public let failure: String?
}

/// A notification as it was posted.
public struct PostedNotification: Sendable, Codable, Equatable {
    /// The notification's name.
    public let name: String
    /// Who posted it.
    public let sender: String
    /// Its depth (see ``NotificationDelivery/depth``).
    public let depth: Int

    /// The deepest notification delivered (`PB_NOTIFICATION_DEPTH_MAX`); deeper ones are dropped.
    public static var depthLimit: Int { NotificationBus.depthLimit }
}

extension NotificationReport {
    /// Decodes a report; one written before a delivery could stop (no `stopped`, no `undelivered`)
    /// decodes with nothing undelivered.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        deliveries = try container.decode([NotificationDelivery].self, forKey: .deliveries)
        unobserved = try container.decode([PostedNotification].self, forKey: .unobserved)
        dropped = try container.decode([PostedNotification].self, forKey: .dropped)
        stopped = try container.decodeIfPresent(DeliveryStop.self, forKey: .stopped)
        undelivered = try container.decodeIfPresent([PostedNotification].self, forKey: .undelivered) ?? []
    }
}
