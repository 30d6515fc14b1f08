import CPlugboard
import CWorkerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import PlugboardFiles
import PlugboardSystem
import PlugboardWorkerProtocol
import Synchronization
import SystemPackage

/// The worker side of a plugin worker: a child process that loads one plugin
/// library exactly as the host does in process (same checks, flags and load
/// report) and serves the host's calls over the channel of WORKER-PROTOCOL.md.
///
/// Plugin code prints to the worker's own standard output and error, which the
/// host reads as lines attributed to the library: nothing a plugin prints or
/// closes reaches the channels, which are on descriptors 3 and 5.
public enum WorkerServer {
    /// The descriptor the worker finds its channel on.
    public static let channelDescriptor: Int32 = 3
    /// The descriptor the worker finds its concurrent channel on (protocol 1.7): what the host sends
    /// that the worker takes at any time, read by its reader thread.
    public static let concurrentChannelDescriptor: Int32 = 5
    /// Environment variable: the host's process id; the worker exits if its parent is not that process.
    public static let parentVariable = "PLUGBOARD_WORKER_PARENT"
    /// Environment variable: set (to 1) when the host offers the files service, which
    /// plugins in the worker then reach through `files` requests.
    public static let filesVariable = "PLUGBOARD_WORKER_FILES"

    /// The worker program's whole work: serves the host that started it (``serve(environment:)``)
    /// and returns the exit status; run by hand, it says so and returns 64.
    public static func main() -> Int32 {
        // Read once: each read of `ProcessInfo.environment` builds the whole dictionary again.
        let environment = ProcessInfo.processInfo.environment
        guard environment[parentVariable] != nil else {
            complain("this program is started by a Plugboard host (plugboard run --isolation process); it is not run by hand")
            return 64
        }
        return serve(environment: environment)
    }

    /// Serves the host until it asks to shut down or goes away, and returns the exit status.
    static func serve(environment: [String: String]) -> Int32 {
        // Dies with the host, also when the host is killed with SIGKILL; a host that
        // ended before the request took effect is seen as a changed parent.
        guard pbw_die_with_parent() == 0,
              let parent = environment[parentVariable].flatMap(Int32.init), getppid() == parent else { return 70 }
        // Confined before anything else: while the worker has one thread (all later ones inherit the
        // sandbox) and before the library is opened (its constructors run confined). Fails closed.
        do throws(SandboxFailure) {
            try WorkerSandbox.fromEnvironment(environment)?.apply(environment: environment)
        } catch {
            complain("the sandbox cannot be applied: \(error)")
            return WorkerSandbox.failureStatus
        }
        for descriptor in [channelDescriptor, concurrentChannelDescriptor] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        // A crash in plugin code prints its stage (init, register_plugins…) on standard error, which the host shows.
        FaultReporter.install()
        let channel = WorkerChannel(descriptor: FileDescriptor(rawValue: channelDescriptor))
        // The handshake comes first, alone: the host's version says where the rest comes.
        let hello: ReceivedMessage
        do throws(WorkerProtocolError) {
            hello = try channel.receive()
        } catch {
            return error == .closedByPeer ? 0 : 71
        }
        guard case .hello(let hostVersion, _, _) = hello.message else { return 71 }
        // A host of 1.7 or later sends what runs at any time (a function call while the main thread
        // is busy, the replies to the worker's own requests) on the concurrent channel, which the
        // reader thread reads; the main thread reads the channel itself. An older host sends
        // everything on the channel: the reader thread reads it and queues the main thread's requests.
        let concurrent = WorkerProtocolVersion.current.sharesConcurrentChannel(with: hostVersion)
        var status = stat()
        if concurrent, fstat(concurrentChannelDescriptor, &status) != 0 || status.st_mode & S_IFMT != S_IFSOCK {
            complain("the host speaks worker protocol \(hostVersion) but gave no socket on descriptor \(concurrentChannelDescriptor)")
            return 71
        }
        // The worker only reads it: what plugin code writes there fails instead of piling up unread.
        if concurrent { _ = Glibc.shutdown(concurrentChannelDescriptor, Int32(SHUT_WR)) }
        let queue: any WorkerRequestQueue = concurrent ? ChannelRequests(channel) : WorkerInbox()
        let reading = concurrent ? WorkerChannel(descriptor: FileDescriptor(rawValue: concurrentChannelDescriptor)) : channel
        // Set before the reader thread starts, which is before anything is routed.
        let functionCalls = Mutex<WorkerFunctionCalls?>(nil)
        // Replies to plugins' `files` and `invoke` requests go to the request (a plugin waits for
        // them inside a callback, while the main thread is busy in it). A `function-call` the
        // queue does not take runs at once on a thread of its own: the main thread may be in a
        // callback that waits for this very call (an invoke cycle).
        let requests = WorkerRequests(sending: channel, reading: reading, route: { received in
            if !queue.offer(received) { functionCalls.withLock { $0 }?.runOnThreadOfItsOwn(received, queue: queue) }
        }, ended: { queue.close(malformed: false) })
        let files = environment[filesVariable] == nil ? nil : HostFilesProxy(requests: requests)
        let session = WorkerSession(channel: channel, files: files, invoke: HostInvokeProxy(requests: requests))
        functionCalls.withLock { $0 = session.functionCalls }
        do {
            guard try session.handle(hello) else { return 0 }
        } catch {
            return 71
        }
        do {
            try startDetachedThread { requests.readUntilEnd() }
        } catch {
            complain("cannot start the thread that reads the channel: \(error)")
            return 71
        }
        // Once a library is loaded and no request has come for a while, what starting and loading
        // touched is given back (ResidentPages); the next request maps again what it uses. Once per
        // worker: a reload does not repeat it.
        var releasePending = false, released = false
        while true {
            switch queue.take(idleAfter: releasePending ? ResidentPages.idleDelay : nil) {
            case .message(let received):
                let loads = received.message.kind == .load
                do {
                    guard try session.handle(received) else { return 0 }
                } catch {
                    return 71
                }
                if loads, !released { releasePending = true }
            case .idle:
                ResidentPages.release()
                (releasePending, released) = (false, true)
            case .closed:
                return queue.malformed ? 71 : 0
            }
        }
    }

    /// Says why the worker cannot go on, on its standard error (the host shows it as the library's line).
    private static func complain(_ message: String) {
        let line = Array("plugboard-worker: \(message)\n".utf8)
        _ = line.withUnsafeBytes { bytes in try? systemCall { write(STDERR_FILENO, bytes.baseAddress, bytes.count) } }
    }
}

/// What one worker has loaded and how it answers each request.
final class WorkerSession {
    private let channel: WorkerChannel
    /// Loads libraries exactly as a host does in process, and lets go of them.
    private let loader: LibraryLoader
    /// The bus, relayed to the host.
    private let bus: WorkerBus
    /// The plugins loaded so far, numbered in registration order across loads since the start or
    /// the last `unload` (the protocol's plugin numbers). Read and written by the main thread alone,
    /// so the access check each `call` paid at run time (about 75 instructions) is left out.
    @exclusivity(unchecked)
    private var plugins: [(definition: CPluginDefinition, library: LoadedLibrary)] = []
    /// Runs `function-call`s, on this thread or another.
    let functionCalls: WorkerFunctionCalls
    /// Carries invocations of plugins this worker does not hold to the host.
    private let invoke: HostInvokeProxy

    /// The most bytes of a log message sent to the host: a frame's, less room for its other fields.
    static let longestLogMessage = WireFormat.maximumPayloadLength - (64 << 10)

    /// `message`, cut to ``longestLogMessage`` bytes and saying so when longer: one frame carries it,
    /// where a longer one was refused whole, and lost.
    static func fitting(_ message: String) -> String {
        let size = message.utf8.count
        guard size > longestLogMessage else { return message }
        return String(decoding: message.utf8.prefix(longestLogMessage), as: UTF8.self)
            + "… (\(size - longestLogMessage) more bytes cut: longer than one message to the host carries)"
    }

    init(channel: WorkerChannel, files: HostFilesProxy?, invoke: HostInvokeProxy) {
        self.channel = channel
        self.invoke = invoke
        let log: PluginHost.LogHandler = { record in
            try? channel.send(.log(pluginID: record.plugin, level: record.level.abiValue, message: Self.fitting(record.message)))
        }
        let callSite = PluginCallSite(record: CallRecord(), decorators: CallDecorators([], log: log))
        let registry = PluginRegistry()
        let invoker = FunctionInvoker(callSite: callSite, callTimeout: nil, log: log)
        invoker.follow(registry)
        invoker.relay(to: invoke)
        bus = WorkerBus(channel: channel, registry: registry, callSite: callSite)
        loader = LibraryLoader(registry: registry, invoker: invoker, bus: bus.bus, callSite: callSite, log: log,
                               filesProxy: files, announce: { function in try? channel.send(.stage(function)) })
        functionCalls = WorkerFunctionCalls(channel: channel, invoker: invoker)
    }

    /// Answers one message; false when the worker should exit.
    func handle(_ received: consuming ReceivedMessage) throws(WorkerProtocolError) -> Bool {
        let id = received.requestID
        // Taken out of the message, not copied (a copy and a release of the whole message per call).
        let message = (consume received).message
        switch message {
        case .hello(let version, _, _):
            try channel.send(.helloReply(protocolVersion: .current, workerPID: getpid()), requestID: id)
            invoke.hostSpeaks(minor: version.minor)
            // Set before any load: each library's refusals go where the handler said when it loaded.
            if version.minor >= WorkerMessage.Kind.refused.introducedInMinor {
                let channel = channel
                loader.busRefusalHandler = { refusal in
                    try? channel.send(.refused(pluginID: refusal.plugin, call: refusal.call.rawValue, name: refusal.name,
                                               reason: refusal.reason))
                }
            }
            return version.major == WorkerProtocolVersion.current.major
        case .load(let path, let allowInsecure):
            let report = loader.loadLibrary(at: path, trust: allowInsecure ? .allowInsecure : .strict, placement: nil)
            // By id, looked up once each: a library may register many thousand plugins.
            let registered = Dictionary(loader.registry.entries.map { ($0.descriptor.id, $0) }) { first, _ in first }
            for summary in report.plugins {
                if let entry = registered[summary.descriptor.id], case .native(let definition, let library) = entry.implementation {
                    plugins.append((definition, library))
                }
            }
            functionCalls.number(plugins.map(\.definition.descriptor.id))
            // Written directly, as its `Codable` form would be: `JSONEncoder`'s first use in a fresh
            // process (metadata, conformance lookups) took more of a worker's start than the load.
            var json = JSONWriter()
            report.writeJSON(into: &json)
            // The file checked before the `dlopen`, so the host can tell whether it is the one it checked itself.
            let file = invoke.hostProtocolMinor >= WorkerProtocolVersion.loadedFileStampMinor ? loader.loaded.triedStatus[path]?.stamp : nil
            try channel.send(.loaded(reportJSON: json.bytes, file: file), requestID: id)
        case .call(let plugin, let request):
            guard Int(plugin) < plugins.count else {
                throw .malformed(field: "call.plugin", cause: .invalidValue(UInt64(plugin)))
            }
            let (definition, library) = plugins[Int(plugin)]
            // Only a remote notification hands out a completion, which may come during the call: its
            // gate holds it behind the answer. Any other call's answer goes at once.
            let completes = if case .event(let event) = request { event.kind.policy == .callAllStrongestFetch } else { false }
            let gate = completes ? CompletionGate(channel: channel) : nil
            let answer = WorkerCall.invoke(definition, library: library, request: request, plugin: plugin,
                                           notification: id, gate: gate)
            if let gate { try gate.answer(answer, requestID: id) } else { try channel.send(.answer(answer), requestID: id) }
        case .shutdown:
            loader.shutdown()
            try channel.send(.bye, requestID: id)
            return false
        case .unload(let linger):
            // The host lets go of every library (its `deinit` runs) and can load again: each stays
            // mapped (RTLD_NODELETE), so a later `load` runs `init` again in this process.
            var libraries: [ObjectIdentifier: LoadedLibrary] = [:]
            for (_, library) in plugins { libraries[ObjectIdentifier(library)] = library }
            loader.shutdown()
            plugins = []
            functionCalls.number([])
            var rest = timespec(tv_sec: Int(linger / 1000), tv_nsec: Int(linger % 1000) * 1_000_000), left = timespec()
            while nanosleep(&rest, &left) == -1 && errno == EINTR { rest = left }
            let census = libraries.values.reduce(ServiceCensus.zero) { $0 + $1.serviceCensus }
            try channel.send(.unloaded(census), requestID: id)
        case .functionCall:
            try functionCalls.run(ReceivedMessage(message, requestID: id))
        case .deliver(let token, let name, let payload, let sender, let depth):
            bus.deliver(PluginNotification(name: name, payload: payload, sender: sender), to: token, depth: Int(depth))
            try channel.send(.delivered, requestID: id)
        case .serviceReply, .helloReply, .loaded, .answer, .log, .files, .completion, .bye, .stage, .unloaded,
             .functionResult, .invoke, .invokeReply, .delivered, .observe, .stopObserving, .post, .refused, .checkInvoke:
            throw .malformed(field: "kind", cause: .unknownKind(message.kind.rawValue))
        }
        return true
    }
}

/// Keeps a remote notification's completion behind its call's answer: the
/// protocol sends `completion` only after `answer(pending)`, but a plugin may
/// complete during its callback, on any thread.
final class CompletionGate: Sendable {
    private let channel: WorkerChannel
    private let state = Mutex<(answered: Bool, held: [WorkerMessage])>((false, []))

    init(channel: WorkerChannel) {
        self.channel = channel
    }

    /// Sends `message` now if the call was answered, else after the answer.
    func complete(_ message: WorkerMessage) {
        state.withLock { state in
            if state.answered { try? channel.send(message) } else { state.held.append(message) }
        }
    }

    /// Sends the call's answer, then whatever was held back.
    func answer(_ answer: CallAnswer, requestID: UInt64) throws(WorkerProtocolError) {
        try state.withLock { state throws(WorkerProtocolError) in
            try channel.send(.answer(answer), requestID: requestID)
            state.answered = true
            for message in state.held { try channel.send(message) }
            state.held = []
        }
    }
}
