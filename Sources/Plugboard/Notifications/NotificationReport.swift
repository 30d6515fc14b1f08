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

    /// True when nothing was posted.
    public var isEmpty: Bool { deliveries.isEmpty && unobserved.isEmpty && dropped.isEmpty }

    /// Appends `other`'s entries after this report's.
    mutating func append(_ other: NotificationReport) {
        deliveries += other.deliveries
        unobserved += other.unobserved
        dropped += other.dropped
    }
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
