/// One application lifecycle event with its arguments: what the embedding API dispatches
/// (``Kind`` names it in reports), what an events-script line parses into, what the worker
/// protocol's `call` carries and what the tracer prints.
///
/// Adding an event: a case here, its row in ``Kind``'s table and its arm in `Kind.dispatch`, its
/// arms in ``arguments``, ``init(kind:arguments:)`` and the two calls (`LifecycleEvent+Calls.swift`);
/// then its C slot in the concern's header and the SDKs. The host's dispatch, worker, script, wire
/// and tracer take it from here.
public enum LifecycleEvent: Sendable, Equatable {
    /// The application is about to finish launching; launch options as JSON object text.
    case willFinishLaunching(options: EventText)
    /// The application finished launching; launch options as JSON object text.
    case didFinishLaunching(options: EventText)
    /// The application is asked to open a URL; options as JSON object text.
    case openURL(url: EventText, options: EventText)
    /// The application is asked to continue a user activity (a reverse-DNS type) with its user info as JSON object text.
    case continueUserActivity(type: EventText, userInfo: EventText)
    /// A remote notification arrived (user info as JSON object text); the host waits `deadline` at most for the answers.
    case remoteNotification(userInfo: EventText, deadline: Duration)
    /// The device registered for remote notifications, with its token's opaque bytes.
    case registerToken([UInt8])
    /// Registering for remote notifications failed, with why as text.
    case registerFailed(error: EventText)
    /// The system is short of memory.
    case memoryWarning
    /// Protected files are about to lock.
    case protectedDataWillBecomeUnavailable
    /// Protected files are readable again.
    case protectedDataDidBecomeAvailable
    /// The application became active.
    case didBecomeActive
    /// The application is about to become inactive.
    case willResignActive
    /// The application moved to the background.
    case didEnterBackground
    /// The application is about to return to the foreground.
    case willEnterForeground
    /// The application is about to terminate.
    case willTerminate

    /// Which event this is. Always inlined, with ``Kind``'s dispatch facts: so that they are decided
    /// when compiling where the event is known.
    @inlinable @inline(__always)
    public var kind: Kind {
        switch self {
        case .willFinishLaunching: .willFinishLaunching
        case .didFinishLaunching: .didFinishLaunching
        case .openURL: .openURL
        case .continueUserActivity: .continueUserActivity
        case .remoteNotification: .remoteNotification
        case .registerToken: .registerToken
        case .registerFailed: .registerFailed
        case .memoryWarning: .memoryWarning
        case .protectedDataWillBecomeUnavailable: .protectedDataWillBecomeUnavailable
        case .protectedDataDidBecomeAvailable: .protectedDataDidBecomeAvailable
        case .didBecomeActive: .didBecomeActive
        case .willResignActive: .willResignActive
        case .didEnterBackground: .didEnterBackground
        case .willEnterForeground: .willEnterForeground
        case .willTerminate: .willTerminate
        }
    }

    /// The arguments, one per parameter of the kind, in its order.
    public var arguments: [EventArgument] {
        switch self {
        case .willFinishLaunching(let options), .didFinishLaunching(let options): [.text(options)]
        case .openURL(let url, let options): [.text(url), .text(options)]
        case .continueUserActivity(let type, let userInfo): [.text(type), .text(userInfo)]
        case .remoteNotification(let userInfo, let deadline): [.text(userInfo), .duration(deadline)]
        case .registerToken(let token): [.bytes(token)]
        case .registerFailed(let error): [.text(error)]
        case .memoryWarning, .protectedDataWillBecomeUnavailable, .protectedDataDidBecomeAvailable, .didBecomeActive,
            .willResignActive, .didEnterBackground, .willEnterForeground, .willTerminate: []
        }
    }

    /// The event `kind` with `arguments`, one per parameter in its order and of its form;
    /// nil when they do not fit the parameters.
    public init?(kind: Kind, arguments: [EventArgument]) {
        func text(_ index: Int) -> EventText? {
            guard index < arguments.count, case .text(let text) = arguments[index] else { return nil }
            return text
        }
        guard arguments.count == kind.parameters.count else { return nil }
        switch kind {
        case .willFinishLaunching, .didFinishLaunching:
            guard let options = text(0) else { return nil }
            self = kind == .willFinishLaunching ? .willFinishLaunching(options: options) : .didFinishLaunching(options: options)
        case .openURL:
            guard let url = text(0), let options = text(1) else { return nil }
            self = .openURL(url: url, options: options)
        case .continueUserActivity:
            guard let type = text(0), let userInfo = text(1) else { return nil }
            self = .continueUserActivity(type: type, userInfo: userInfo)
        case .remoteNotification:
            guard let userInfo = text(0), case .duration(let deadline) = arguments[1] else { return nil }
            self = .remoteNotification(userInfo: userInfo, deadline: deadline)
        case .registerToken:
            guard case .bytes(let token) = arguments[0] else { return nil }
            self = .registerToken(token)
        case .registerFailed:
            guard let error = text(0) else { return nil }
            self = .registerFailed(error: error)
        case .memoryWarning: self = .memoryWarning
        case .protectedDataWillBecomeUnavailable: self = .protectedDataWillBecomeUnavailable
        case .protectedDataDidBecomeAvailable: self = .protectedDataDidBecomeAvailable
        case .didBecomeActive: self = .didBecomeActive
        case .willResignActive: self = .willResignActive
        case .didEnterBackground: self = .didEnterBackground
        case .willEnterForeground: self = .willEnterForeground
        case .willTerminate: self = .willTerminate
        }
    }
}

/// One argument of a ``LifecycleEvent``, of its parameter's ``EventParameter/Form``.
public enum EventArgument: Sendable, Equatable {
    /// Text or JSON object text.
    case text(EventText)
    /// Opaque bytes.
    case bytes([UInt8])
    /// A time span (whole milliseconds on the wire).
    case duration(Duration)
}

/// One parameter of an event kind: its name in events scripts and traces, its field on the
/// worker wire, and its form.
public struct EventParameter: Sendable {
    /// What an argument of the parameter is.
    public enum Form: Sendable {
        /// Text, a JSON string in a script.
        case text
        /// JSON object text, an object in a script ("{}" when absent).
        case jsonObject
        /// Opaque bytes, hex digits in a script.
        case bytes
        /// A deadline in whole milliseconds in a script (0 to one hour); not an argument of the C slot.
        case milliseconds
    }

    /// The field of an events-script line and the argument's name in a trace.
    public let name: String
    /// The field's name in the worker protocol's `call`, as a malformed frame's error names it (`call.url`).
    public let wireField: StaticString
    /// What an argument of it is.
    public let form: Form

    static let options = EventParameter(name: "options", wireField: "call.options", form: .jsonObject)
    static let userInfo = EventParameter(name: "userInfo", wireField: "call.user-info", form: .jsonObject)
}

extension LifecycleEvent {
    /// Every lifecycle event by name, with what the host does for it (``Kind``'s one table).
    ///
    /// The raw value is the event's row in the table (its position among the cases), not its
    /// wire number (``wireCode``).
    public enum Kind: UInt8, Sendable, CaseIterable, Codable {
        case willFinishLaunching, didFinishLaunching, openURL, continueUserActivity, remoteNotification,
             registerToken, registerFailed, memoryWarning, protectedDataWillBecomeUnavailable,
             protectedDataDidBecomeAvailable, didBecomeActive, willResignActive, didEnterBackground,
             willEnterForeground, willTerminate

        /// One row of the table.
        struct Row: Sendable {
            let name: String
            let parameters: [EventParameter]
            /// The number of a `call` for it on the worker wire: never changed, and never one of the
            /// saved-state calls' (16, 17); a new event takes the next free one (18, …).
            let wire: UInt8
            /// The worker-protocol minor (of major 1) that introduced it.
            let minor: UInt16
        }

        /// Per event, in the cases' order: its name in reports and scripts, its parameters, its number
        /// on the worker wire and the protocol minor that introduced it (a new event comes in a new
        /// minor). What dispatch needs (its C slot, concern and policy) is in ``dispatch``.
        static let table: [Row] = [
            Row(name: "will-finish-launching", parameters: [.options], wire: 1, minor: 0),
            Row(name: "did-finish-launching", parameters: [.options], wire: 2, minor: 0),
            Row(name: "open-url",
                parameters: [EventParameter(name: "url", wireField: "call.url", form: .text), .options],
                wire: 3, minor: 0),
            Row(name: "continue-user-activity",
                parameters: [EventParameter(name: "type", wireField: "call.activity-type", form: .text), .userInfo],
                wire: 4, minor: 0),
            Row(name: "remote-notification",
                parameters: [.userInfo, EventParameter(name: "deadlineMs", wireField: "call.deadline-ms", form: .milliseconds)],
                wire: 5, minor: 0),
            Row(name: "register-token",
                parameters: [EventParameter(name: "token", wireField: "call.token", form: .bytes)],
                wire: 6, minor: 0),
            Row(name: "register-failed",
                parameters: [EventParameter(name: "error", wireField: "call.error", form: .text)],
                wire: 7, minor: 0),
            Row(name: "memory-warning", parameters: [], wire: 8, minor: 0),
            Row(name: "protected-data-will-become-unavailable", parameters: [], wire: 9, minor: 0),
            Row(name: "protected-data-did-become-available", parameters: [], wire: 10, minor: 0),
            Row(name: "did-become-active", parameters: [], wire: 11, minor: 0),
            Row(name: "will-resign-active", parameters: [], wire: 12, minor: 0),
            Row(name: "did-enter-background", parameters: [], wire: 13, minor: 0),
            Row(name: "will-enter-foreground", parameters: [], wire: 14, minor: 0),
            Row(name: "will-terminate", parameters: [], wire: 15, minor: 0),
        ]

        /// Its row's index in ``table``.
        var row: Int { Int(rawValue) }

        /// The name in reports, traces and events scripts (`open-url`).
        public var name: String { Self.table[row].name }
        /// The C slot it calls, as traces, fault and timeout messages name it (`open_url`).
        @inlinable @inline(__always)
        public var callbackName: StaticString { dispatch.callback }
        /// The concern whose plugins receive it.
        @inlinable @inline(__always)
        public var concern: PluginConcern { dispatch.concern }
        /// How the host calls plugins for it and reduces their answers.
        @inlinable @inline(__always)
        public var policy: DispatchPolicy { dispatch.policy }

        /// What dispatching it takes: its C slot, its concern and its policy.
        @usableFromInline
        struct Dispatch {
            @usableFromInline let callback: StaticString
            @usableFromInline let concern: PluginConcern
            @usableFromInline let policy: DispatchPolicy

            @inlinable
            init(callback: StaticString, concern: PluginConcern, policy: DispatchPolicy) {
                self.callback = callback
                self.concern = concern
                self.policy = policy
            }
        }

        /// Per event, what dispatching it takes. A switch, not a row of ``table``: an event known where
        /// it is dispatched (a typed method of the host) then has its concern, policy and slot decided
        /// when compiling, and its dispatch is the one loop over its concern's plugins.
        @inlinable @inline(__always)
        var dispatch: Dispatch {
            switch self {
            case .willFinishLaunching: Dispatch(callback: "will_finish_launching", concern: .launch, policy: .callAllAnd)
            case .didFinishLaunching: Dispatch(callback: "did_finish_launching", concern: .launch, policy: .callAllAnd)
            case .openURL: Dispatch(callback: "open_url", concern: .openURL, policy: .firstTrueWins)
            case .continueUserActivity:
                Dispatch(callback: "continue_user_activity", concern: .userActivity, policy: .firstTrueWins)
            case .remoteNotification:
                Dispatch(callback: "did_receive_remote_notification", concern: .remoteNotifications, policy: .callAllStrongestFetch)
            case .registerToken: Dispatch(callback: "did_register", concern: .remoteNotifications, policy: .broadcast)
            case .registerFailed: Dispatch(callback: "did_fail_to_register", concern: .remoteNotifications, policy: .broadcast)
            case .memoryWarning: Dispatch(callback: "did_receive_memory_warning", concern: .memory, policy: .broadcast)
            case .protectedDataWillBecomeUnavailable:
                Dispatch(callback: "will_become_unavailable", concern: .protectedData, policy: .broadcast)
            case .protectedDataDidBecomeAvailable:
                Dispatch(callback: "did_become_available", concern: .protectedData, policy: .broadcast)
            case .didBecomeActive: Dispatch(callback: "did_become_active", concern: .appState, policy: .broadcast)
            case .willResignActive: Dispatch(callback: "will_resign_active", concern: .appState, policy: .broadcast)
            case .didEnterBackground: Dispatch(callback: "did_enter_background", concern: .appState, policy: .broadcast)
            case .willEnterForeground: Dispatch(callback: "will_enter_foreground", concern: .appState, policy: .broadcast)
            case .willTerminate: Dispatch(callback: "will_terminate", concern: .termination, policy: .broadcastReverse)
            }
        }

        /// Its parameters, in order.
        public var parameters: [EventParameter] { Self.table[row].parameters }
        /// Its number in the worker protocol's `call` (WORKER-PROTOCOL.md, "Events").
        public var wireCode: UInt8 { Self.table[row].wire }
        /// The worker-protocol minor (of major 1) that introduced it: the host sends it only to a
        /// worker whose minor is at least this.
        public var introducedInMinor: UInt16 { Self.table[row].minor }
        /// Whether an events script may contain it: the host sends the launch events itself.
        public var isScriptable: Bool { concern != .launch }

        /// The event named `name` (`open-url`), if there is one.
        public init?(name: String) {
            guard let index = Self.table.firstIndex(where: { $0.name == name }) else { return nil }
            self.init(rawValue: UInt8(index))
        }

        /// The event whose wire number is `wireCode`, if there is one.
        public init?(wireCode: UInt8) {
            guard Int(wireCode) < Self.byWireCode.count, let kind = Self.byWireCode[Int(wireCode)] else { return nil }
            self = kind
        }

        /// Each event at the index of its wire number (nil where none has it): a worker reads one
        /// per `call`, and a search of ``table`` cost about 70 instructions.
        private static let byWireCode: [Kind?] = {
            var kinds = [Kind?](repeating: nil, count: Int(table.map(\.wire).max() ?? 0) + 1)
            for kind in allCases { kinds[Int(kind.wireCode)] = kind }
            return kinds
        }()

        /// Decodes the name.
        public init(from decoder: any Decoder) throws {
            let name = try decoder.singleValueContainer().decode(String.self)
            guard let kind = Kind(name: name) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown event '\(name)'"))
            }
            self = kind
        }

        /// Encodes the name.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(name)
        }
    }
}
