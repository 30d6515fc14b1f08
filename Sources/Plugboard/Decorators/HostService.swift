/// A host service a policy can deny a plugin's library (``AccessPolicy``).
public enum HostService: String, Sendable, CaseIterable, Comparable {
    /// The files service (`pb_host_t.files`).
    case files
    /// Calling another plugin's function (`pb_host_t.invoke`).
    case invoke
    /// Posting to the notification bus (`pb_notifications_t.post`). From a worker a post is
    /// not answered: a denied one is dropped there, with the same log line.
    case post
    /// Observing the notification bus (`pb_notifications_t.observe`); from a worker a denied
    /// observation is not made (nothing is delivered to it).
    case observe

    public static func < (lhs: HostService, rhs: HostService) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}

/// What a policy allows or denies: a concern (the events of one family) or a host service.
public enum AccessRight: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The concern's events are delivered to the plugin.
    case concern(PluginConcern)
    /// The plugin's library may call the service.
    case service(HostService)

    /// The right named `name` in a policy: a concern's (`open-url`) or a service's (`files`) name.
    public init?(name: String) {
        if let concern = PluginConcern(rawValue: name) {
            self = .concern(concern)
        } else if let service = HostService(rawValue: name) {
            self = .service(service)
        } else {
            return nil
        }
    }

    /// Every name a policy accepts, concerns first.
    public static var names: [String] {
        PluginConcern.allCases.map(\.rawValue) + HostService.allCases.map(\.rawValue)
    }

    /// Its name in a policy.
    public var description: String {
        switch self {
        case .concern(let concern): concern.rawValue
        case .service(let service): service.rawValue
        }
    }

    public static func < (lhs: AccessRight, rhs: AccessRight) -> Bool {
        switch (lhs, rhs) {
        case (.concern(let a), .concern(let b)): a < b
        case (.service(let a), .service(let b)): a < b
        case (.concern, .service): true
        case (.service, .concern): false
        }
    }
}
