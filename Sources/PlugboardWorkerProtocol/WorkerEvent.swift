/// A lifecycle event with its C-simple arguments, as a `call` carries it to
/// the worker, which passes them to the plugin's callback unchanged.
///
/// Text arguments are bytes: the host's events carry UTF-8 (JSON object text
/// for the JSON ones), and the validator also sends bytes that are not UTF-8,
/// which a worker passes on as they are (since protocol 1.2).
public enum WorkerEvent: Sendable, Equatable {
    /// Launch options as JSON object text ("{}" when none).
    case willFinishLaunching(optionsJSON: [UInt8])
    /// Launch options as JSON object text ("{}" when none).
    case didFinishLaunching(optionsJSON: [UInt8])
    /// The URL to open and its options as JSON object text.
    case openURL(url: [UInt8], optionsJSON: [UInt8])
    /// The activity type (reverse-DNS) and its user info as JSON object text.
    case continueUserActivity(activityType: [UInt8], userInfoJSON: [UInt8])
    /// The notification's user info as JSON object text, and how long the host
    /// waits for the plugin's completion, in milliseconds from the call.
    case remoteNotification(userInfoJSON: [UInt8], deadlineMilliseconds: UInt32)
    /// The device token's opaque bytes.
    case registerToken(token: [UInt8])
    /// Why registering failed, as text.
    case registerFailed(error: [UInt8])
    /// Memory is short.
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
    /// Asks for the plugin's saved state (since 1.4); answered `state` or `refused`.
    case saveState
    /// Gives back the state a previous run saved, and the plugin version that saved it
    /// (since 1.4); answered `returned` or `refused`.
    case restoreState(savedVersion: [UInt8], state: [UInt8])

    /// The event's wire number.
    public var code: EventCode {
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
        case .saveState: .saveState
        case .restoreState: .restoreState
        }
    }

    /// Appends the event code, then the arguments.
    func encode(into encoder: inout WireEncoder) {
        encoder.append(code.rawValue)
        switch self {
        case .willFinishLaunching(let options), .didFinishLaunching(let options):
            encoder.append(bytes: options)
        case .openURL(let url, let options):
            encoder.append(bytes: url)
            encoder.append(bytes: options)
        case .continueUserActivity(let activityType, let userInfo):
            encoder.append(bytes: activityType)
            encoder.append(bytes: userInfo)
        case .remoteNotification(let userInfo, let deadline):
            encoder.append(bytes: userInfo)
            encoder.append(deadline)
        case .registerToken(let token):
            encoder.append(bytes: token)
        case .registerFailed(let error):
            encoder.append(bytes: error)
        case .restoreState(let savedVersion, let state):
            encoder.append(bytes: savedVersion)
            encoder.append(bytes: state)
        case .memoryWarning, .protectedDataWillBecomeUnavailable, .protectedDataDidBecomeAvailable,
            .didBecomeActive, .willResignActive, .didEnterBackground, .willEnterForeground, .willTerminate, .saveState:
            break
        }
    }

    /// Reads an event code and the arguments it takes.
    static func decode(from decoder: inout WireDecoder) throws(WorkerProtocolError) -> WorkerEvent {
        let raw = try decoder.readUInt8("call.event")
        guard let code = EventCode(rawValue: raw) else {
            throw .malformed(field: "call.event", cause: .invalidValue(UInt64(raw)))
        }
        return switch code {
        case .willFinishLaunching: .willFinishLaunching(optionsJSON: try decoder.readBytes("call.options"))
        case .didFinishLaunching: .didFinishLaunching(optionsJSON: try decoder.readBytes("call.options"))
        case .openURL:
            .openURL(url: try decoder.readBytes("call.url"), optionsJSON: try decoder.readBytes("call.options"))
        case .continueUserActivity:
            .continueUserActivity(
                activityType: try decoder.readBytes("call.activity-type"),
                userInfoJSON: try decoder.readBytes("call.user-info"))
        case .remoteNotification:
            .remoteNotification(
                userInfoJSON: try decoder.readBytes("call.user-info"),
                deadlineMilliseconds: try decoder.readUInt32("call.deadline-ms"))
        case .registerToken: .registerToken(token: try decoder.readBytes("call.token"))
        case .registerFailed: .registerFailed(error: try decoder.readBytes("call.error"))
        case .memoryWarning: .memoryWarning
        case .protectedDataWillBecomeUnavailable: .protectedDataWillBecomeUnavailable
        case .protectedDataDidBecomeAvailable: .protectedDataDidBecomeAvailable
        case .didBecomeActive: .didBecomeActive
        case .willResignActive: .willResignActive
        case .didEnterBackground: .didEnterBackground
        case .willEnterForeground: .willEnterForeground
        case .willTerminate: .willTerminate
        case .saveState: .saveState
        case .restoreState:
            .restoreState(savedVersion: try decoder.readBytes("call.saved-version"), state: try decoder.readBytes("call.state"))
        }
    }
}
