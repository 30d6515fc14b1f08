/// A lifecycle event with its C-simple arguments, as a `call` carries it to
/// the worker, which passes them to the plugin's callback unchanged.
public enum WorkerEvent: Sendable, Equatable {
    /// Launch options as a JSON object ("{}" when none).
    case willFinishLaunching(optionsJSON: String)
    /// Launch options as a JSON object ("{}" when none).
    case didFinishLaunching(optionsJSON: String)
    /// The URL to open and its options as a JSON object.
    case openURL(url: String, optionsJSON: String)
    /// The activity type (reverse-DNS) and its user info as a JSON object.
    case continueUserActivity(activityType: String, userInfoJSON: String)
    /// The notification's user info as a JSON object, and how long the host
    /// waits for the plugin's completion, in milliseconds from the call.
    case remoteNotification(userInfoJSON: String, deadlineMilliseconds: UInt32)
    /// The device token's opaque bytes.
    case registerToken(token: [UInt8])
    /// Why registering failed, as text.
    case registerFailed(error: String)
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
        }
    }

    /// Appends the event code, then the arguments.
    func encode(into encoder: inout WireEncoder) {
        encoder.append(code.rawValue)
        switch self {
        case .willFinishLaunching(let options), .didFinishLaunching(let options):
            encoder.append(string: options)
        case .openURL(let url, let options):
            encoder.append(string: url)
            encoder.append(string: options)
        case .continueUserActivity(let activityType, let userInfo):
            encoder.append(string: activityType)
            encoder.append(string: userInfo)
        case .remoteNotification(let userInfo, let deadline):
            encoder.append(string: userInfo)
            encoder.append(deadline)
        case .registerToken(let token):
            encoder.append(bytes: token)
        case .registerFailed(let error):
            encoder.append(string: error)
        case .memoryWarning, .protectedDataWillBecomeUnavailable, .protectedDataDidBecomeAvailable,
            .didBecomeActive, .willResignActive, .didEnterBackground, .willEnterForeground, .willTerminate:
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
        case .willFinishLaunching: .willFinishLaunching(optionsJSON: try decoder.readString("call.options"))
        case .didFinishLaunching: .didFinishLaunching(optionsJSON: try decoder.readString("call.options"))
        case .openURL:
            .openURL(url: try decoder.readString("call.url"), optionsJSON: try decoder.readString("call.options"))
        case .continueUserActivity:
            .continueUserActivity(
                activityType: try decoder.readString("call.activity-type"),
                userInfoJSON: try decoder.readString("call.user-info"))
        case .remoteNotification:
            .remoteNotification(
                userInfoJSON: try decoder.readString("call.user-info"),
                deadlineMilliseconds: try decoder.readUInt32("call.deadline-ms"))
        case .registerToken: .registerToken(token: try decoder.readBytes("call.token"))
        case .registerFailed: .registerFailed(error: try decoder.readString("call.error"))
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
}
