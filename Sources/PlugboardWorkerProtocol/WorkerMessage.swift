import PlugboardPluginAPI

/// Every message between a host and a plugin worker, in both directions.
///
/// Each travels as one frame (see `WireFormat`) with a request id: a request
/// carries a nonzero id that its reply repeats; a notification carries 0.
/// Who may send what when is in WORKER-PROTOCOL.md.
public enum WorkerMessage: Sendable, Equatable {
    // Host to worker.

    /// Request, first message of the host: its protocol version and C ABI version.
    case hello(protocolVersion: WorkerProtocolVersion, hostABIMajor: UInt32, hostABIMinor: UInt32)
    /// Request: load the library at `path` as the host would in process.
    case load(path: String, allowInsecure: Bool)
    /// Request: call `plugin` (the worker's plugin number) with `request`.
    case call(plugin: UInt32, request: CallRequest)
    /// Reply to `files`: a PB_OK or PB_ERR_* status, the result bytes, and the error text.
    case serviceReply(status: Int32, payload: [UInt8], message: String)
    /// Request: call every library's `deinit`, answer `bye`, exit.
    case shutdown
    /// Request (since 1.2): call every library's `deinit` and keep serving (a later `load`
    /// runs `init` again in the same process); wait `lingerMilliseconds` after the last
    /// `deinit` returned, then answer `unloaded`.
    case unload(lingerMilliseconds: UInt32)
    /// Request (since 1.3): call function `function` (its position among the plugin's accepted
    /// functions, the order of the load report) of `plugin` with `arguments`; `depth` is how many
    /// invocations the call is nested in (0 for a call the host makes itself). May be sent while
    /// another request waits for its reply; answered by `functionResult`.
    case functionCall(plugin: UInt32, function: UInt32, depth: UInt32, arguments: [PluginValue])
    /// Reply to `invoke` (since 1.3): the invoked function's result, or a status and a sentence.
    case invokeReply(InvokeResult)
    /// Request (since 1.4): call the observer the worker announced as `token` with the
    /// notification `name`, its `payload` (JSON object text) and `sender`, `depth` deep; answered by `delivered`.
    case deliver(token: UInt64, name: String, payload: String, sender: String, depth: UInt32)

    // Worker to host.

    /// Reply to `hello`: the worker's protocol version and process id.
    case helloReply(protocolVersion: WorkerProtocolVersion, workerPID: Int32)
    /// Reply to `load`: the load report as JSON text (its schema is the host library's), and the
    /// stamp of the library file the worker checked just before its `dlopen` (since 1.9; nil when it
    /// found none, or to an older host).
    case loaded(reportJSON: [UInt8], file: FileStamp?)
    /// Reply to `call`: what the callback answered.
    case answer(CallAnswer)
    /// Notification: a plugin logged (`pluginID` nil for the library itself).
    case log(pluginID: String?, level: Int32, message: String)
    /// Request: a plugin called the files service; `secondPath` is the destination,
    /// new name or extension where the operation takes one, else empty.
    case files(operation: FilesOperation, path: String, secondPath: String, data: [UInt8], flags: UInt32)
    /// Notification: `plugin` completed the remote notification of call `notification` with a PB_FETCH_* result.
    case completion(notification: UInt64, plugin: UInt32, result: Int32)
    /// Reply to `shutdown`: every `deinit` returned; the worker exits next.
    case bye
    /// Notification (since 1.1): the worker is about to call the library's `name`
    /// (`plugboard_entry`, `init`, `register_plugins` or `deinit`), so a host that
    /// loses the worker now can name the stage.
    case stage(LibraryFunction)
    /// Reply to `unload` (since 1.2): how the unloaded libraries used the host services,
    /// calls made after `deinit` (until the reply) included.
    case unloaded(ServiceCensus)
    /// Reply to `functionCall` (since 1.3): the result, or the typed error.
    case functionResult(FunctionResult)
    /// Request (since 1.3): plugin code called the host's `invoke` for `function`
    /// (`plugin-id.function`) with `arguments`, nested `depth` invocations deep
    /// (1 for a call from a callback); answered by `invokeReply`.
    case invoke(function: String, depth: UInt32, arguments: [PluginValue])
    /// Reply to `deliver` (since 1.4): the observer returned.
    case delivered
    /// Notification (since 1.4): `pluginID` observes `name`; the worker's `token` names the observer in `deliver`.
    case observe(token: UInt64, pluginID: String, name: String)
    /// Notification (since 1.4): the observer `token` ended.
    case stopObserving(token: UInt64)
    /// Notification (since 1.4): `pluginID` posted `name` with `payload` (JSON object text), `depth`
    /// deep (1 outside an observer; one more than the notification being delivered inside one).
    case post(pluginID: String, name: String, payload: String, depth: UInt32)
    /// Notification (since 1.5): the worker refused a notification-bus `call` (`post`, `observe`
    /// or `stop_observing`) a library made for `pluginID` (nil when none was given) with the
    /// notification `name` (nil when it takes none or was NULL), for `reason`, the sentence it logged.
    case refused(pluginID: String?, call: String, name: String?, reason: String)
    /// Request (since 1.6): plugin code prepared an invocation of `function` (`plugin-id.function`)
    /// with `arguments` (the host's `prepare_invoke` or `set_prepared_argument`): look the function
    /// up and check the arguments as `invoke` would, without calling it; answered by `invokeReply`,
    /// a void value when they pass.
    case checkInvoke(function: String, arguments: [PluginValue])

    /// The wire number of each message; the high bit is set on the worker's.
    ///
    /// Wire format: the values never change; a new message takes a new number in a new protocol minor.
    public enum Kind: UInt8, Sendable, CaseIterable {
        /// `hello`.
        case hello = 0x01
        /// `load`.
        case load = 0x02
        /// `call`.
        case call = 0x03
        /// `serviceReply`.
        case serviceReply = 0x04
        /// `shutdown`.
        case shutdown = 0x05
        /// `unload`.
        case unload = 0x06
        /// `functionCall`.
        case functionCall = 0x07
        /// `invokeReply`.
        case invokeReply = 0x08
        /// `deliver`.
        case deliver = 0x09
        /// `helloReply`.
        case helloReply = 0x81
        /// `loaded`.
        case loaded = 0x82
        /// `answer`.
        case answer = 0x83
        /// `log`.
        case log = 0x84
        /// `files`.
        case files = 0x85
        /// `completion`.
        case completion = 0x86
        /// `bye`.
        case bye = 0x87
        /// `stage`.
        case stage = 0x88
        /// `unloaded`.
        case unloaded = 0x89
        /// `functionResult`.
        case functionResult = 0x8A
        /// `invoke`.
        case invoke = 0x8B
        /// `delivered`.
        case delivered = 0x8C
        /// `observe`.
        case observe = 0x8D
        /// `stopObserving`.
        case stopObserving = 0x8E
        /// `post`.
        case post = 0x8F
        /// `refused`.
        case refused = 0x90
        /// `checkInvoke`.
        case checkInvoke = 0x91

        /// The protocol minor (of major 1) that introduced this kind: a side sends it only
        /// when the peer's minor is at least this.
        public var introducedInMinor: UInt16 {
            switch self {
            case .stage: 1
            case .unload, .unloaded: 2
            case .functionCall, .functionResult, .invoke, .invokeReply: 3
            case .deliver, .delivered, .observe, .stopObserving, .post: 4
            case .refused: 5
            case .checkInvoke: 6
            default: 0
            }
        }

        /// Whether a frame of this kind carries a nonzero request id (requests
        /// and replies) or 0 (notifications: `log`, `completion`, `stage`, `observe`, `stop-observing`, `post`,
        /// `refused`).
        public var carriesRequestID: Bool {
            switch self {
            case .log, .completion, .stage, .observe, .stopObserving, .post, .refused: false
            default: true
            }
        }
    }

    /// The message's wire number.
    public var kind: Kind {
        switch self {
        case .hello: .hello
        case .load: .load
        case .call: .call
        case .serviceReply: .serviceReply
        case .shutdown: .shutdown
        case .helloReply: .helloReply
        case .loaded: .loaded
        case .answer: .answer
        case .log: .log
        case .files: .files
        case .completion: .completion
        case .bye: .bye
        case .stage: .stage
        case .unload: .unload
        case .unloaded: .unloaded
        case .functionCall: .functionCall
        case .invokeReply: .invokeReply
        case .functionResult: .functionResult
        case .invoke: .invoke
        case .deliver: .deliver
        case .delivered: .delivered
        case .observe: .observe
        case .stopObserving: .stopObserving
        case .post: .post
        case .refused: .refused
        case .checkInvoke: .checkInvoke
        }
    }
}
