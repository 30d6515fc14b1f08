import CPlugboard
import Dispatch
import Foundation
import Glibc
import PlugboardChildProcess
import PlugboardFiles
import PlugboardWorkerProtocol
import Synchronization
import SystemPackage

/// The host's end of one plugin worker: the child process, its channel, and
/// the threads that read what it sends (replies, log lines, completions) and
/// what it prints (lines attributed to the library).
///
/// The worker runs in a process group of its own (a terminal's Ctrl-C reaches
/// only the host, which then sends will-terminate), dies with the host
/// (`PR_SET_PDEATHSIG`), and is always reaped: at ``close(timeout:)``, when it
/// ends by itself, or when this object goes away.
final class WorkerConnection: @unchecked Sendable {
    /// The library this worker loads.
    let library: String
    /// The trust rule the library was loaded under, which a restart applies again.
    let trust: PluginTrust
    private let process: ChildProcess
    /// The socket to the worker; closed by the reader thread once the worker ended.
    let channel: WorkerChannel
    private let log: PluginHost.LogHandler
    /// Receives the bus calls the worker refused its library; nil takes none.
    private let refusals: LogRouter.RefusalSink?
    /// Runs the worker's files requests on the host's container; nil without one.
    private let files: WorkerFilesServer?
    /// The host services the host's policy denies this library (files and invoke requests ask it).
    let gate: ServiceGate
    /// Runs the worker's `invoke` requests (plugins calling other plugins' functions); nil serves none.
    private let invoker: FunctionInvoker?
    /// Takes the worker's posts and observations; nil takes none.
    private let bus: NotificationBus?
    /// The ids of the worker's plugins the host registered: the only senders and receivers its
    /// posts and observations may name (plugin code can write a frame naming another library's plugin).
    private let admitted = Mutex<Set<String>>([])
    private let state = Mutex(State())
    private let replied = DispatchSemaphore(value: 0)

    private struct State {
        var nextRequest: UInt64 = 1
        var awaited: UInt64 = 0
        var reply: WorkerMessage?
        var ending: WorkerEnding?
        /// The completions of remote notifications whose answer is not given yet, by the call's request id.
        var notifications: [UInt64: FetchCompletion] = [:]
        /// The ids of the worker's plugins that were handed a completion, by their number in the
        /// worker: a late answer (its completion forgotten) is named by its plugin.
        var completingPlugins: [UInt32: PluginID] = [:]
        var reported = false
        var withdrawn = false
        /// The `function-call` requests waiting for their `function-result`, and the results come.
        var functionCalls: [UInt64: DispatchSemaphore] = [:]
        var functionResults: [UInt64: FunctionResult] = [:]
        /// Ids of `function-call`s: a range of their own (high bit set), so calls from other
        /// threads never take an id that ``nextRequestID`` announced for the dispatch thread.
        var nextFunctionCall: UInt64 = 1 << 63
        var stage: String?
        var peerVersion: WorkerProtocolVersion?
    }

    /// Starts a worker for `library`, loaded under `trust`; its log lines go to `log`, its refused bus
    /// calls to `refusals`, its printed lines to `output`.
    init(library: String, trust: PluginTrust, worker: String, facade: FileFacade?, invoker: FunctionInvoker?,
         bus: NotificationBus?, log: @escaping PluginHost.LogHandler, refusals: LogRouter.RefusalSink?,
         output: @escaping PluginHost.OutputHandler) throws(LoadFailure) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw LoadFailure(.open, "cannot make the worker's channel", systemError: Errno(rawValue: errno).description)
        }
        var environment = ProcessInfo.processInfo.environment
        environment[WorkerServer.parentVariable] = String(getpid())
        environment[WorkerServer.filesVariable] = facade == nil ? nil : "1"
        // The host reports a crash in one line; the runtime's backtrace would bury it (unless asked for).
        if environment["SWIFT_BACKTRACE"] == nil { environment["SWIFT_BACKTRACE"] = "enable=no" }
        do {
            process = try ChildProcess(worker, [], environment: environment, input: .discard, output: .pipe,
                                       error: .pipe, passing: [WorkerServer.channelDescriptor: pair[1]],
                                       ownProcessGroup: true)
        } catch {
            Glibc.close(pair[0])
            Glibc.close(pair[1])
            throw LoadFailure(.open, "cannot start the plugin worker \(worker)", systemError: error.description)
        }
        Glibc.close(pair[1])
        self.library = library
        self.trust = trust
        channel = WorkerChannel(descriptor: FileDescriptor(rawValue: pair[0]))
        self.log = log
        self.refusals = refusals
        let gate = ServiceGate(log: log)
        self.gate = gate
        files = facade.map { WorkerFilesServer(library: library, facade: $0, gate: gate) }
        self.invoker = invoker
        self.bus = bus
        for (descriptor, stream) in [(process.output, PluginOutputLine.Stream.stdout), (process.errorOutput, .stderr)] {
            guard let descriptor else { continue }
            let process = self.process
            Thread.detachNewThread {
                Self.readLines(descriptor, of: process) { output(PluginOutputLine(source: library, stream: stream, text: $0)) }
            }
        }
        // The reader is the channel's one receiver: once the worker ended, it closes the channel,
        // so a dead worker's connection holds no socket until the host shuts down.
        Thread.detachNewThread { [self] in
            readMessages()
            channel.close()
        }
    }

    deinit {
        process.stop()
    }

    /// True the first time it is called after the worker failed: the host reports a failure once.
    func markReported() -> Bool {
        state.withLock { state in
            defer { state.reported = true }
            return !state.reported
        }
    }

    /// True the first time it is called: the host withdraws a failed worker's plugins (and restarts it) once.
    func markWithdrawn() -> Bool {
        state.withLock { state in
            defer { state.withdrawn = true }
            return !state.withdrawn
        }
    }

    /// The last library function the worker said it was about to call (`init`, …), if any.
    var stage: String? { state.withLock { $0.stage } }

    /// The protocol version the worker answered the handshake with; nil before it.
    var peerVersion: WorkerProtocolVersion? {
        get { state.withLock { $0.peerVersion } }
        set { state.withLock { $0.peerVersion = newValue } }
    }

    /// How the worker failed during a call, once the host reported it (``markReported()``); nil for a
    /// worker that serves, or that ended because the host closed it.
    var reportedEnding: WorkerEnding? { state.withLock { $0.reported ? $0.ending : nil } }

    /// Whether the worker still serves calls.
    var ending: WorkerEnding? { state.withLock { $0.ending } }

    /// Sends `message` and waits for its reply, at most `timeout` (nil: as long as it takes),
    /// and only while `interrupted` says false (asked every tenth of a second).
    /// A worker that ends, breaks the channel, does not answer in time or is waited for
    /// when the host is interrupted is stopped and reaped.
    func request(_ message: WorkerMessage, timeout: Duration?,
                 interrupted: () -> Bool = { false }) -> Result<WorkerMessage, WorkerEnding> {
        let id: UInt64
        switch state.withLock({ state -> Result<UInt64, WorkerEnding> in
            if let ending = state.ending { return .failure(ending) }
            defer { state.nextRequest += 1 }
            state.awaited = state.nextRequest
            state.reply = nil
            return .success(state.nextRequest)
        }) {
        case .failure(let ending): return .failure(ending)
        case .success(let next): id = next
        }
        do {
            try channel.send(message, requestID: id)
        } catch {
            return .failure(end(.lost(error.description)))
        }
        return awaitAnswer(signalled: replied, timeout: timeout, interrupted: interrupted) { state in
            defer { state.reply = nil }
            return state.reply
        }
    }

    /// Sends a `functionCall` and waits for its `functionResult`, at most `timeout` (nil: as long as
    /// it takes) and only while `interrupted` says false. Unlike ``request(_:timeout:interrupted:)``,
    /// any thread may call it, also while another request waits (a plugin's `invoke` while the
    /// dispatch thread is in a callback of this worker). A worker that ends, breaks the channel or
    /// does not answer in time is stopped and reaped, as for any request.
    func callFunction(_ message: WorkerMessage, timeout: Duration?,
                      interrupted: () -> Bool = { false }) -> Result<FunctionResult, WorkerEnding> {
        let signal = DispatchSemaphore(value: 0)
        let id: UInt64
        switch state.withLock({ state -> Result<UInt64, WorkerEnding> in
            if let ending = state.ending { return .failure(ending) }
            defer { state.nextFunctionCall += 1 }
            state.functionCalls[state.nextFunctionCall] = signal
            return .success(state.nextFunctionCall)
        }) {
        case .failure(let ending): return .failure(ending)
        case .success(let next): id = next
        }
        defer { state.withLock { $0.functionCalls[id] = nil } }
        do {
            try channel.send(message, requestID: id)
        } catch {
            return .failure(end(.lost(error.description)))
        }
        return awaitAnswer(signalled: signal, timeout: timeout, interrupted: interrupted) { state in
            state.functionResults.removeValue(forKey: id)
        }
    }

    /// Waits until `take` finds the answer in the state (the reader thread signals `signal` when one
    /// arrives), the worker ends, `timeout` passes (nil: never) or `interrupted` says true (asked every
    /// tenth of a second); a timeout or an interruption stops and reaps the worker. An answer that
    /// arrived counts even when the worker ended right after it (it exits after `bye`), and when the
    /// wait ended before the reader thread's signal came.
    private func awaitAnswer<Answer>(signalled signal: DispatchSemaphore, timeout: Duration?, interrupted: () -> Bool,
                                     take: (inout State) -> Answer?) -> Result<Answer, WorkerEnding> {
        let deadline: DispatchTime = timeout.map { .now() + .nanoseconds(Int(clamping: $0.nanoseconds)) } ?? .distantFuture
        while true {
            let woken = signal.wait(timeout: min(deadline, .now() + .milliseconds(100))) == .success
            let outcome = state.withLock { state -> Result<Answer, WorkerEnding>? in
                if let answer = take(&state) { return .success(answer) }
                return state.ending.map { .failure($0) }
            }
            if let outcome { return outcome }
            if woken { continue }
            if DispatchTime.now() >= deadline { return .failure(end(.timedOut(timeout ?? .zero))) }
            if interrupted() { return .failure(end(.interrupted)) }
        }
    }

    /// The completion that plugin number `plugin` (`id`) was handed in the remote notification of call
    /// `request`, until ``forgetCompletion(of:)``.
    func expectCompletion(of request: UInt64, from plugin: UInt32, id: PluginID, _ completion: FetchCompletion) {
        state.withLock { state in
            state.notifications[request] = completion
            state.completingPlugins[plugin] = id
        }
    }

    /// Drops the completion of call `request` once the notification's answer was given: an answer
    /// the worker sends later is warned about here, as the aggregation would.
    func forgetCompletion(of request: UInt64) {
        state.withLock { _ = $0.notifications.removeValue(forKey: request) }
    }

    /// How many remote notifications' completions the host still holds for this worker.
    var expectedCompletions: Int { state.withLock { $0.notifications.count } }

    /// The request id the next ``request(_:timeout:)`` uses.
    var nextRequestID: UInt64 { state.withLock { $0.nextRequest } }

    /// Asks the worker to run every `deinit` and exit, at most `timeout` (a worker
    /// that fails meanwhile is reported, like any call); then closes the channel,
    /// and a worker still there gets SIGTERM, a short wait, and SIGKILL.
    /// Returns the sentence of that failure (`/path/libx.so crashed with SIGSEGV in deinit`), if any.
    @discardableResult
    func close(timeout: Duration) -> String? {
        var failure: String?
        if ending == nil, case .failure(let ending) = request(WorkerMessage.shutdown, timeout: timeout) {
            let sentence = ending.sentence(who: library, callback: "deinit", library: library)
            log(PluginLogRecord(source: HostIdentity.name, plugin: nil, level: .error, message: sentence))
            failure = sentence
        }
        try? channel.shutdown()
        if (try? process.reapIfEnded()) == nil {
            try? process.signal(SIGTERM)
            for _ in 0..<20 where (try? process.reapIfEnded()) == nil { usleep(10_000) }
        }
        process.stop()
        _ = end(.lost("closed by the host"))
        return failure
    }

    /// Ends a worker that broke the protocol (`cause` says how) without asking it to shut
    /// down: it is killed and reaped and its channel closed. Returns how it ended (the first reason wins).
    @discardableResult
    func abandon(_ cause: String) -> WorkerEnding {
        let ending = end(.lost(cause))
        close(timeout: .zero)
        return ending
    }

    /// Records how the worker ended (the first reason wins), stops and reaps it (a worker
    /// that ended by itself is only reaped), and wakes a waiting request.
    @discardableResult
    private func end(_ reason: WorkerEnding) -> WorkerEnding {
        let first = state.withLock { state -> WorkerEnding in
            if let ending = state.ending { return ending }
            state.ending = reason
            return reason
        }
        process.stop()
        replied.signal()
        for waiting in state.withLock({ Array($0.functionCalls.values) }) { waiting.signal() }
        return first
    }

    /// Makes `plugins` the worker's plugins the host registered (after its load).
    func admit(_ plugins: [PluginID]) {
        admitted.withLock { $0 = Set(plugins.map(\.rawValue)) }
    }

    /// Whether `plugin`, named by the worker's `call`, is one of its registered plugins; if not,
    /// ends the worker (the frame was forged) and returns false.
    private func isAdmitted(_ plugin: String, _ call: String) -> Bool {
        guard !admitted.withLock({ $0.contains(plugin) }) else { return true }
        end(.lost("it sent a \(call) on behalf of '\(plugin)', which is not one of its plugins the host registered"))
        return false
    }

    /// Reads the worker's messages until the channel ends, and returns after ``end(_:)``: replies wake
    /// the waiting request; log lines, completions, posts, observations and refusals are taken at once, on this thread.
    private func readMessages() {
        while true {
            let received: ReceivedMessage
            do {
                received = try channel.receive()
            } catch {
                end(endingAfterLostChannel(error))
                return
            }
            switch received.message {
            case .log(let plugin, let level, let message):
                log(PluginLogRecord(source: library, plugin: plugin, level: PluginLogRecord.Level(abiValue: level) ?? .info,
                                    message: message))
            case .files(let operation, let path, let secondPath, let data, let flags):
                let reply = files?.serve(operation, path: path, secondPath: secondPath, data: data, flags: flags)
                    ?? .serviceReply(status: PB_ERR_UNAVAILABLE, payload: [], message: "this host offers no files service")
                do {
                    try channel.send(reply, requestID: received.requestID)
                } catch {
                    end(endingAfterLostChannel(error))
                    return
                }
            case .stage(let name):
                state.withLock { $0.stage = name }
            case .functionResult(let result):
                let waiting = state.withLock { state -> DispatchSemaphore? in
                    guard let waiting = state.functionCalls[received.requestID] else { return nil }
                    state.functionResults[received.requestID] = result
                    return waiting
                }
                guard let waiting else {
                    end(.lost("it sent function-result with request id \(received.requestID), which nothing awaited"))
                    return
                }
                waiting.signal()
            case .invoke(let function, let depth, let arguments):
                serveInvoke(function, depth: depth, arguments: arguments, requestID: received.requestID)
            case .post(let plugin, let name, let payload, let depth):
                // The worker checked it; plugin code can write to the channel too, so the host checks again.
                do throws(NotificationRefusal) {
                    try NotificationRefusal.check(name: name, call: "post")
                    try NotificationRefusal.check(payload: payload, name: name)
                } catch {
                    end(.lost("it sent a post the bus refuses: \(error)"))
                    return
                }
                guard isAdmitted(plugin, "post") else { return }
                // A post is not answered (the worker said PB_OK): a denied one is dropped, the gate logs the first.
                guard gate.refusal(.post) == nil else { continue }
                // Queued before the reader takes the answer of the call the post was made in: never reordered after it.
                // A full queue drops it: the worker's plugin was answered PB_OK already (see notifications.h).
                bus?.post(name, payload: payload, sender: plugin, depth: Int(depth))
            case .observe(let token, let plugin, let name):
                do throws(NotificationRefusal) {
                    try NotificationRefusal.check(name: name, call: "observe")
                } catch {
                    end(.lost("it sent an observe the bus refuses: \(error)"))
                    return
                }
                guard isAdmitted(plugin, "observe") else { return }
                // Not answered either: a denied observation is never made (no delivery reaches it).
                guard gate.refusal(.observe) == nil else { continue }
                // Past the limit (the worker's own bus refuses that first; only a forged frame gets here)
                // the observation is not made.
                _ = bus?.observe(name, receiver: plugin, owner: ObjectIdentifier(self), .remote(self, token: token))
            case .stopObserving(let token):
                bus?.stopRemoteObserving(token, owner: ObjectIdentifier(self))
            case .refused(let plugin, let call, let name, let reason):
                guard let call = BusRefusal.Call(rawValue: call) else {
                    end(.lost("it sent a refusal of \(call.debugDescription), which is not a notification-bus call"))
                    return
                }
                refusals?(BusRefusal(library: library, plugin: plugin, call: call, name: name, reason: reason))
            case .completion(let notification, let plugin, let result):
                let (completion, id) = state.withLock { ($0.notifications[notification], $0.completingPlugins[plugin]) }
                let answer = FetchResult(abiValue: result)
                if let completion {
                    if let answer {
                        completion(answer)
                    } else {
                        completion.reject("answered with \(result), which is not a PB_FETCH_* value; ignored")
                    }
                } else if let id {
                    // The notification's answer was given and its completions forgotten: the answer is late.
                    log(PluginLogRecord(source: HostIdentity.name, plugin: id.rawValue, level: .warning,
                                        message: FetchAggregation.lateAnswer(answer?.rawValue ?? String(result))))
                }
            default:
                // The first reply settles the request: a second one with its id is awaited by nothing.
                let expected = state.withLock { state -> Bool in
                    guard received.requestID == state.awaited else { return false }
                    state.reply = received.message
                    state.awaited = 0
                    return true
                }
                if expected {
                    replied.signal()
                } else {
                    end(.lost("it sent \(received.message.kind) with request id \(received.requestID), which nothing awaited"))
                    return
                }
            }
        }
    }

    /// Runs a plugin's `invoke` from the worker on a thread of its own (the invoked function may be
    /// in this worker again, whose `function-result` this reader thread must be free to read) and
    /// sends the `invokeReply`. The caller is in another process: a `pointer` cannot pass.
    private func serveInvoke(_ function: String, depth: UInt32, arguments: [PluginValue], requestID: UInt64) {
        Thread.detachNewThread { [self] in
            if let refusal = gate.refusal(.invoke) {
                try? channel.send(.invokeReply(.failure(status: PB_ERR_DENIED, message: "invoke \(function): \(refusal)")),
                                  requestID: requestID)
                return
            }
            let outcome = invoker?.invoke(function, arguments, depth: depth, caller: .elsewhere)
                ?? .failure(InvokeFailure(status: PB_ERR_UNAVAILABLE, message: "invoke \(function): this host serves no invocations"))
            let reply: InvokeResult = switch outcome {
            case .success(let value): .value(value)
            case .failure(let failure): .failure(status: failure.status, message: failure.message)
            }
            try? channel.send(.invokeReply(reply), requestID: requestID)
        }
    }

    /// Why the channel ended: the worker's own end (a signal or an exit status),
    /// or, when it still runs a little later, a broken channel (``end(_:)`` then kills it).
    private func endingAfterLostChannel(_ error: WorkerProtocolError) -> WorkerEnding {
        for _ in 0..<100 {
            if let termination = try? process.reapIfEnded() {
                switch termination {
                case .signaled(let signal): return .crashed(signal: signal)
                case .exited(let status): return .exited(status: status)
                }
            }
            usleep(10_000)
        }
        return .lost(error == .closedByPeer ? "it closed its channel" : error.description)
    }

    /// Splits what the worker prints on `descriptor` into lines for `deliver`.
    private static func readLines(_ descriptor: Int32, of process: ChildProcess, _ deliver: (String) -> Void) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while let count = try? process.read(descriptor, into: &chunk), count > 0 {
            pending += chunk[..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                deliver(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
        if !pending.isEmpty { deliver(String(decoding: pending, as: UTF8.self)) }
    }
}
