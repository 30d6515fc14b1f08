import CPlugboard
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import PlugboardChildProcess
import PlugboardFiles
import PlugboardSystem
import PlugboardWorkerProtocol
import Synchronization
import SystemPackage

/// The host's end of one plugin worker: its process (``WorkerProcess``), its channel, the
/// requests waiting for answers (``PendingRequests``), and the reader thread that routes what
/// the worker sends to one handler per kind: replies to their requests, log lines, files
/// requests (``WorkerFilesServer``), invocations (``WorkerInvokeServer``), bus calls
/// (``WorkerBusRelay``) and completions (``WorkerCompletions``).
final class WorkerConnection: Sendable {
    /// The library this worker loads.
    let library: String
    /// The trust rule the library was loaded under, which a restart applies again.
    let trust: PluginTrust
    /// The `plugboard-worker` executable it runs, which a restart or a reload of the library starts again.
    let worker: String
    /// How the worker is confined; nil when it is not.
    let sandbox: WorkerSandbox?
    private let process: WorkerProcess
    /// The socket to the worker; closed by the reader thread once the worker ended.
    var channel: WorkerChannel { process.channel }
    /// Set by the handshake when both sides use the concurrent channel (WORKER-PROTOCOL.md).
    private let sharesConcurrentChannel = Atomic(false)
    /// The requests sent that the worker's main thread serves, in order, and whose replies are
    /// still awaited: a function call goes there only when there is none (the main thread is idle).
    private let mainThreadRequests = Atomic(0)
    private let log: PluginHost.LogHandler
    /// Receives the bus calls the worker refused its library; nil takes none.
    private let refusals: LogRouter.RefusalSink?
    /// The worker's refusals passed to ``refusals``: the first ``RefusalLogBudget/limit``, as in
    /// process (the worker counts too, but a worker that does not is not trusted to).
    private let refusalBudget = RefusalLogBudget()
    /// The host services the host's policy denies this library (files and invoke requests ask it).
    let gate: ServiceGate
    private let pending = PendingRequests()
    /// Reads the worker's messages, one thread at a time: the reader thread, or a request that
    /// waits for its reply and finds them there first.
    private let reader: ChannelReader
    /// Runs the worker's files requests on the host's container; nil without one.
    private let files: WorkerFilesServer?
    private let invocations: WorkerInvokeServer
    private let bus: WorkerBusRelay
    /// Marks the worker's log lines that name a plugin its libraries did not register.
    let logs: WorkerLogCheck
    private let completions: WorkerCompletions
    private let state = Mutex(State())

    private struct State {
        var reported = false
        var withdrawn = false
        var stage: LibraryFunction?
        var peerVersion: WorkerProtocolVersion?
        var file: FileStatus?
    }

    /// Starts a worker for `library`, loaded under `trust`, confined by `sandbox` (nil: not confined);
    /// its log lines and sandbox denials go to `log`, its refused bus calls to `refusals`, its printed lines to `output`.
    init(library: String, trust: PluginTrust, sandbox: WorkerSandbox?, worker: String, facade: FileFacade?,
         invoker: FunctionInvoker?, bus: NotificationBus?, log: @escaping PluginHost.LogHandler,
         refusals: LogRouter.RefusalSink?, output: @escaping PluginHost.OutputHandler) throws(LoadFailure) {
        var own = [WorkerServer.parentVariable: String(getpid())]
        own[WorkerServer.filesVariable] = facade == nil ? nil : "1"
        let host = ProcessInfo.processInfo.environment
        // The host reports a crash in one line; the runtime's backtrace would bury it (unless asked for), and
        // its backtracer is a program the worker would exec.
        own["SWIFT_BACKTRACE"] = sandbox == nil ? host["SWIFT_BACKTRACE"] ?? "enable=no" : "enable=no"
        let environment = sandbox.map { $0.environment(from: host, own: own) } ?? host.merging(own) { _, mine in mine }
        let logs = WorkerLogCheck(deliver: log)
        process = try WorkerProcess(worker: worker, library: library, environment: environment, output: output,
                                    denials: sandbox?.seccomp == true ? Self.denialReporter(library: library, logs: logs, log: log) : nil)
        reader = ChannelReader(process.channel)
        self.library = library
        self.trust = trust
        self.worker = worker
        self.sandbox = sandbox
        self.log = log
        self.logs = logs
        self.refusals = refusals
        let gate = ServiceGate(log: log)
        self.gate = gate
        files = facade.map { WorkerFilesServer(facade: $0, gate: gate) }
        invocations = WorkerInvokeServer(invoker: invoker, gate: gate)
        self.bus = WorkerBusRelay(bus: bus, gate: gate)
        completions = WorkerCompletions(log: log)
        // The reader thread reads whenever no waiting request does: once the worker ended, it closes
        // the channel, so a dead worker's connection holds no socket until the host shuts down.
        do {
            try startDetachedThread { [self] in
                readMessages()
                channel.close()
                process.concurrentChannel.close()
            }
        } catch {
            process.stop()
            throw LoadFailure(.open, "cannot start the thread that reads the plugin worker of \(library)", systemError: error.description)
        }
    }

    /// Logs the first denial of each kind (``SandboxDenial/kind``) of `library`'s worker, for at most
    /// ``SandboxDenial/kindsReported`` kinds. The reports come from the worker, where a plugin can forge
    /// them: one is about a plugin only when `logs` knows the library registered it.
    private static func denialReporter(library: String, logs: WorkerLogCheck,
                                       log: @escaping PluginHost.LogHandler) -> @Sendable (SandboxDenial) -> Void {
        let reported = Mutex(Set<String>())
        return { denial in
            guard reported.withLock({ kinds in
                kinds.count < SandboxDenial.kindsReported && kinds.insert(denial.kind).inserted
            }) else { return }
            let who = denial.who.flatMap { logs.knows($0) ? $0 : nil }
            log(.host(.warning, about: who, in: library, denial.sentence(library: library, isOwn: logs.knows)))
        }
    }

    /// True the first time it is called after the worker failed: the host reports a failure once.
    func markReported() -> Bool {
        state.withLock { state in
            defer { state.reported = true }
            return !state.reported
        }
    }

    /// The file the worker was asked to load, as the host found it then; nil until a load is asked.
    /// A restart loads the library again only while the file at its path is this one, unchanged.
    var file: FileStatus? { state.withLock { $0.file } }

    /// Notes that the worker is to load the file `status` describes (see ``file``).
    func noteLoading(_ status: FileStatus) {
        state.withLock { $0.file = status }
    }

    /// True the first time it is called: the host withdraws a failed worker's plugins (and restarts it) once.
    func markWithdrawn() -> Bool {
        state.withLock { state in
            defer { state.withdrawn = true }
            return !state.withdrawn
        }
    }

    /// The last library function the worker said it was about to call (`init`, …), if any.
    var stage: LibraryFunction? { state.withLock { $0.stage } }

    /// The protocol version the worker answered the handshake with; nil before it.
    var peerVersion: WorkerProtocolVersion? { state.withLock { $0.peerVersion } }

    /// Why the worker cannot take what `purpose` needs, introduced in protocol minor `minor`
    /// (of major 1): it speaks an older minor; nil when it can. The one version gate of the host's
    /// requests (a call's request, a function call, an unload). `purpose` is made only for a refusal.
    func refusal(needing minor: UInt16, for purpose: @autoclosure () -> String) -> String? {
        guard let version = peerVersion, version.minor < minor else { return nil }
        return "its worker speaks worker protocol \(version), and \(purpose()) needs 1.\(minor)"
    }

    /// How the worker failed during a call, once the host reported it (``markReported()``); nil for a
    /// worker that serves, or that ended because the host closed it.
    var reportedEnding: WorkerEnding? { state.withLock { $0.reported } ? pending.ending : nil }

    /// Whether the worker still serves calls.
    var ending: WorkerEnding? { pending.ending }

    /// Whether the worker ended while the host asked it nothing (``PendingRequests/endedIdle``).
    var endedIdle: Bool { pending.endedIdle }

    /// Whom a call of `who`'s `callback` that found the worker ended with `ending` blames, and what it
    /// says: `who`, in `callback`; or, when the worker ended while it was asked nothing (``endedIdle``),
    /// no plugin, and the library "between calls": the call that found it ended did not end it.
    func blame(_ ending: WorkerEnding, who: String, callback: String) -> (plugin: String?, sentence: String) {
        guard endedIdle else { return (who, ending.sentence(who: who, callback: callback, library: library)) }
        return (nil, ending.sentence(who: library, callback: nil, library: library))
    }

    /// Sends `message` and waits for its reply, at most `timeout` (nil: as long as it takes),
    /// and only while `interrupted` says false (asked every tenth of a second).
    /// A worker that ends, breaks the channel, does not answer in time or is waited for
    /// when the host is interrupted is stopped and reaped.
    func request(_ message: WorkerMessage, timeout: Duration?,
                 interrupted: () -> Bool = { false }) -> Result<WorkerMessage, WorkerEnding> {
        send(message, functionCall: false, timeout: timeout, interrupted: interrupted)
    }

    /// Sends a `functionCall` and waits for its `functionResult`, as ``request(_:timeout:interrupted:)``
    /// does; but any thread may call it, also while another request waits (a plugin's `invoke`
    /// while the dispatch thread is in a callback of this worker).
    func callFunction(_ message: WorkerMessage, timeout: Duration?,
                      interrupted: () -> Bool = { false }) -> Result<FunctionResult, WorkerEnding> {
        switch send(message, functionCall: true, timeout: timeout, interrupted: interrupted) {
        case .success(.functionResult(let result)): .success(result)
        case .success(let other): .failure(abandon("it answered a function call with \(other.kind)"))
        case .failure(let ending): .failure(ending)
        }
    }

    private func send(_ message: WorkerMessage, functionCall: Bool, timeout: Duration?,
                      interrupted: () -> Bool) -> Result<WorkerMessage, WorkerEnding> {
        let request: PendingRequests.Request
        switch pending.open(functionCall: functionCall) {
        case .failure(let ending): return .failure(ending)
        case .success(let opened): request = opened
        }
        // The worker's main thread reads the channel and serves its requests in order. A function
        // call joins them only when none waits (the main thread is idle); otherwise it takes the
        // concurrent channel, where the worker runs it at once on a thread of its own, also while
        // the main thread is in a callback that waits for this very call (an invoke cycle).
        let onMainThread: Bool
        if functionCall, sharesConcurrentChannel.load(ordering: .relaxed) {
            onMainThread = mainThreadRequests.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged
        } else {
            mainThreadRequests.wrappingAdd(1, ordering: .relaxed)
            onMainThread = true
        }
        defer { if onMainThread { mainThreadRequests.wrappingSubtract(1, ordering: .relaxed) } }
        do {
            if onMainThread {
                // The worker's main thread reads the channel only between requests: a send may wait
                // behind one that runs, as long as this request may take (no timeout: a year), which
                // then ends the worker.
                let readsBetweenRequests = sharesConcurrentChannel.load(ordering: .relaxed)
                try channel.send(message, requestID: request.id, patience: readsBetweenRequests ? timeout ?? .seconds(365 * 86_400) : nil,
                                 interrupted: interrupted)
            } else {
                try process.concurrentChannel.send(message, requestID: request.id)
            }
        } catch .interrupted {
            end(.interrupted)
        } catch {
            // As when a read fails: a worker that ended first (one that could not confine itself,
            // say) is reported by its own end, not as a broken channel. One whose channel was closed
            // before it received this request ended by itself, and not in this request.
            end(process.ending(after: error), byTheWorker: error == .closedByPeer, unsent: request)
        }
        let outcome = pending.wait(for: request, timeout: timeout, interrupted: interrupted,
                                   readReady: { reader.readReady(handle, ended: lost) }, stop: { end($0) })
        if case .hello(let own, _, _) = message, case .success(.helloReply(let peer, _)) = outcome {
            state.withLock { $0.peerVersion = peer }
            sharesConcurrentChannel.store(own.sharesConcurrentChannel(with: peer), ordering: .relaxed)
        }
        return outcome
    }

    /// The completion that plugin number `plugin` (`id`) was handed in the remote notification of call
    /// `request`, until ``forgetCompletion(of:)``.
    func expectCompletion(of request: UInt64, from plugin: UInt32, id: PluginID, _ completion: FetchCompletion) {
        completions.expect(request, from: plugin, id: id, completion)
    }

    /// Drops the completion of call `request` once the notification's answer was given: an answer
    /// the worker sends later is warned about, as the aggregation would.
    func forgetCompletion(of request: UInt64) {
        completions.forget(request)
    }

    /// How many remote notifications' completions the host still holds for this worker.
    var expectedCompletions: Int { completions.count }

    /// The request id the next ``request(_:timeout:interrupted:)`` uses.
    var nextRequestID: UInt64 { pending.nextRequestID }

    /// Asks the worker to run every `deinit` and exit, at most `timeout` (a worker
    /// that fails meanwhile is reported, like any call); then closes the channel,
    /// and a worker still there gets SIGTERM, a short wait, and SIGKILL. Its observations
    /// end with it, those made in a `deinit` included (``WorkerBusRelay/close(_:)``).
    /// Returns the sentence of that failure (`/path/libx.so crashed with SIGSEGV in deinit`), if any.
    @discardableResult
    func close(timeout: Duration) -> String? {
        var failure: String?
        if ending == nil, case .failure(let ending) = request(WorkerMessage.shutdown, timeout: timeout) {
            let sentence = ending.sentence(who: library, callback: "deinit", library: library)
            log(PluginLogRecord(source: HostIdentity.name, plugin: nil, level: .error, message: sentence))
            failure = sentence
        }
        process.terminate()
        end(.lost("closed by the host"))
        bus.close(self)
        return failure
    }

    /// Ends a worker started ahead that no load took (its file was refused, skipped or remembered
    /// as crashed): it holds no library, so there is no `deinit` to ask for, and how it ends is no
    /// plugin's failure to report. Its channel is shut down, and it is stopped and reaped.
    func discard() {
        process.terminate()
        end(.lost("not needed"))
    }

    /// Ends a worker that broke the protocol (`cause` says how) without asking it to shut
    /// down: it is killed and reaped and its channel closed. Returns how it ended (the first reason wins).
    @discardableResult
    func abandon(_ cause: String) -> WorkerEnding {
        let ending = end(.lost(cause))
        close(timeout: .zero)
        return ending
    }

    /// Records how the worker ended (the first reason wins; `byTheWorker` when the channel ended by
    /// itself; `unsent`: the request that found it so as it was sent), stops and reaps it (a worker
    /// that ended by itself is only reaped), and fails every waiting request.
    @discardableResult
    private func end(_ reason: WorkerEnding, byTheWorker: Bool = false, unsent: PendingRequests.Request? = nil) -> WorkerEnding {
        let first = pending.end(reason, byThePeer: byTheWorker, unsent: unsent)
        process.stop()
        return first
    }

    /// Makes `plugins` the worker's plugins the host registered (after its load): the bus calls its
    /// plugin threads made meanwhile are taken now (one forged ends the worker).
    func admit(_ plugins: [PluginID]) {
        if let forged = bus.admit(plugins, of: self) { end(.lost(forged)) }
    }

    /// Reads the worker's messages until the channel ends, and returns after ``end(_:)``.
    private func readMessages() {
        reader.readUntilEnd(handle, ended: lost)
    }

    /// The channel failed (`error`): the worker ended, or broke it.
    private func lost(_ error: WorkerProtocolError) {
        end(process.ending(after: error), byTheWorker: true)
    }

    /// Sends `reply` to the worker's request `id`, on its concurrent channel once the handshake said
    /// both sides use it, else on the channel; a reply that cannot go (the worker stopped reading, or
    /// ended) ends the worker. False when it did.
    @discardableResult
    private func send(reply: WorkerMessage, to id: UInt64) -> Bool {
        do {
            try (sharesConcurrentChannel.load(ordering: .relaxed) ? process.concurrentChannel : channel).send(reply, requestID: id)
            return true
        } catch {
            end(process.ending(after: error), byTheWorker: true)
            return false
        }
    }

    /// Hands `received` to its request (a reply) or to its kind's handler; false when it ended the connection.
    private func handle(_ received: ReceivedMessage) -> Bool {
        switch received.message {
        case .log(let plugin, let level, let message):
            // Shortened here too: plugin code can write a log frame of its own.
            logs.take(PluginLogRecord(source: library, plugin: plugin.map { PluginLogRecord.shortened(id: $0) },
                                      level: PluginLogRecord.Level(abiValue: level) ?? .info, message: message))
        case .files(let operation, let path, let secondPath, let data, let flags):
            let reply = files?.serve(operation, path: path, secondPath: secondPath, data: data, flags: flags)
                ?? .serviceReply(status: PB_ERR_UNAVAILABLE, payload: [], message: "this host offers no files service")
            guard send(reply: reply, to: received.requestID) else { return false }
        case .stage(let function):
            state.withLock { $0.stage = function }
        case .invoke(let function, let depth, let arguments):
            invocations.serve(function, depth: depth, arguments: arguments) { [self] in
                send(reply: .invokeReply($0), to: received.requestID)
            }
        case .checkInvoke(let function, let arguments):
            invocations.check(function, arguments: arguments) { send(reply: .invokeReply($0), to: received.requestID) }
        case .post, .observe, .stopObserving:
            if let forged = bus.take(received.message, from: self) {
                end(.lost(forged), byTheWorker: true)
                return false
            }
        case .refused(let plugin, let call, let name, let reason):
            guard let call = BusRefusal.Call(rawValue: call) else {
                end(.lost("it sent a refusal of \(call.debugDescription), which is not a notification-bus call"), byTheWorker: true)
                return false
            }
            if refusalBudget.spend() != nil {
                refusals?(BusRefusal(library: library, plugin: plugin, call: call, name: name, reason: reason))
            }
        case .completion(let notification, let plugin, let result):
            completions.take(notification: notification, plugin: plugin, result: result)
        default:
            // A reply; the first one settles its request: a second one with its id is awaited by nothing.
            guard pending.answer(received.requestID, with: received.message) else {
                end(.lost("it sent \(received.message.kind) with request id \(received.requestID), which nothing awaited"), byTheWorker: true)
                return false
            }
        }
        return true
    }
}
