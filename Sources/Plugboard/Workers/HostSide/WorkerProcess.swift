import Dispatch
import Glibc
import PlugboardChildProcess
import PlugboardSystem
import PlugboardWorkerProtocol
import SystemPackage

/// One plugin worker as a process: started with its channel, what it prints read as lines
/// attributed to its library, stopped and always reaped.
///
/// The worker runs in a process group of its own (a terminal's Ctrl-C reaches only the host,
/// which then sends will-terminate), dies with the host (`PR_SET_PDEATHSIG`), and is reaped when
/// it ends by itself, when the host closes it, or when this object goes away.
final class WorkerProcess: Sendable {
    private let process: ChildProcess
    /// The socket to the worker: everything the worker sends, and the requests its main thread serves in order.
    let channel: WorkerChannel
    /// The second socket to the worker, its descriptor 5: what the host sends that the worker takes at any
    /// time (WORKER-PROTOCOL.md), once the handshake said both sides use it; unused otherwise.
    let concurrentChannel: WorkerChannel
    /// Left by each output reader at the end of its stream.
    private let readers = DispatchGroup()
    /// How long ``terminate()`` waits for the last printed lines once the worker is gone (a child
    /// the plugin started may hold its output open for longer).
    private static let lastLinesWait = DispatchTimeInterval.seconds(1)

    /// Starts `worker` for `library` with `environment`; its printed lines go to `output`, and
    /// with `denials`, the system calls its sandbox refused (read from ``WorkerSandbox/reportDescriptor``).
    /// How long the host's sends wait for a worker that takes no byte of them: a worker reads its
    /// channel on a thread of its own, so one that takes nothing for this long stopped reading (a
    /// plugin took the channel, or the process is stopped). The worker is then ended; without a
    /// limit, a reply it never read would hold the channel's senders, the host's calls among them.
    static let stallLimit: Duration = .seconds(5)

    init(worker: String, library: String, environment: [String: String], output: @escaping PluginHost.OutputHandler,
         denials: (@Sendable (SandboxDenial) -> Void)?) throws(LoadFailure) {
        // Each pair: the host's end, the worker's end. The report pipe only when the sandbox reports denials.
        var sockets: [(Int32, Int32)] = [], reports: (Int32, Int32)?
        func closeAll() {
            for (own, workers) in sockets + [reports].compactMap({ $0 }) {
                Glibc.close(own)
                Glibc.close(workers)
            }
        }
        for name in ["channel", "concurrent channel"] {
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                let error = Errno(rawValue: errno)
                closeAll()
                throw LoadFailure(.open, "cannot make the worker's \(name)", systemError: error.description)
            }
            sockets.append((pair[0], pair[1]))
        }
        if denials != nil {
            do throws(Errno) {
                reports = try closeOnExecPipe()
            } catch {
                closeAll()
                throw LoadFailure(.open, "cannot make the worker's sandbox report pipe", systemError: error.description)
            }
        }
        var passing = [WorkerServer.channelDescriptor: sockets[0].1, WorkerServer.concurrentChannelDescriptor: sockets[1].1]
        if let reports { passing[WorkerSandbox.reportDescriptor] = reports.1 }
        do {
            // From a thread that never ends: the worker dies when the thread that started it does.
            let passing = passing
            process = try WorkerStartThreads.shared.run { () throws(ChildProcessError) in
                try ChildProcess(worker, [], environment: environment, input: .discard, output: .pipe,
                                 error: .pipe, passing: passing, ownProcessGroup: true)
            }
        } catch {
            closeAll()
            throw LoadFailure(.open, "cannot start the plugin worker \(worker)", systemError: error.description)
        }
        for (_, workers) in sockets { Glibc.close(workers) }
        channel = WorkerChannel(descriptor: FileDescriptor(rawValue: sockets[0].0), stallLimit: Self.stallLimit)
        concurrentChannel = WorkerChannel(descriptor: FileDescriptor(rawValue: sockets[1].0), stallLimit: Self.stallLimit)
        if let denials, let reports {
            Glibc.close(reports.1)
            let descriptor = reports.0
            do throws(LoadFailure) {
                try startReader(of: library) { Self.readDenials(descriptor, denials) }
            } catch {
                Glibc.close(descriptor)
                throw error
            }
        }
        // Each reader closes its stream once it has read the last byte: the process object may be
        // kept long after the worker is gone (a replaced worker's is), and its streams with it.
        process.handOverOutputs()
        let streams = [(process.output, PluginOutputLine.Stream.stdout), (process.errorOutput, .stderr)]
            .compactMap { descriptor, stream in descriptor.map { ($0, stream) } }
        for (index, (descriptor, stream)) in streams.enumerated() {
            let (process, readers) = (self.process, self.readers)
            readers.enter()
            do throws(LoadFailure) {
                try startReader(of: library) {
                    Self.readLines(descriptor, of: process) { output(PluginOutputLine(source: library, stream: stream, text: $0)) }
                    Glibc.close(descriptor)
                    readers.leave()
                }
            } catch {
                readers.leave()
                for (unread, _) in streams[index...] { Glibc.close(unread) }
                throw error
            }
        }
    }

    deinit {
        process.stop()
    }

    /// Starts `body`, a reader of the worker's streams, on a thread of its own; when no thread
    /// can start, the worker is stopped and the failure names `library`.
    private func startReader(of library: String, _ body: @escaping @Sendable () -> Void) throws(LoadFailure) {
        do {
            try startDetachedThread(body)
        } catch {
            process.stop()
            throw LoadFailure(.open, "cannot start a thread to read the plugin worker of \(library)", systemError: error.description)
        }
    }

    /// Kills the worker if it still runs, and reaps it.
    func stop() {
        process.stop()
    }

    /// Shuts the channel down, then gives a worker still there up to 20 ms to exit by itself, then
    /// SIGTERM and up to 200 ms, then SIGKILL; returns once what it printed was delivered (at most
    /// ``lastLinesWait`` after it is gone).
    func terminate() {
        try? channel.shutdown()
        try? concurrentChannel.shutdown()
        // A worker that answered its shutdown is exiting: it usually ends within a few milliseconds,
        // so the waits are short (a reload ends the old worker on the dispatch thread).
        for _ in 0..<20 where (try? process.reapIfEnded()) == nil { usleep(1_000) }
        if (try? process.reapIfEnded()) == nil {
            try? process.signal(SIGTERM)
            for _ in 0..<200 where (try? process.reapIfEnded()) == nil { usleep(1_000) }
        }
        process.stop()
        _ = readers.wait(timeout: .now() + Self.lastLinesWait)
    }

    /// Why the channel ended with `error`: the worker's own end (a signal or an exit status),
    /// or, when it still runs a second later, a broken channel.
    func ending(after error: WorkerProtocolError) -> WorkerEnding {
        // A worker the host gave up on for not reading ended for that, whatever it dies of next.
        if let stall = channel.stall ?? concurrentChannel.stall { return .lost(stall.description) }
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

    /// Delivers the denial reports on `descriptor` until the worker (and every process it started) is gone; closes it.
    private static func readDenials(_ descriptor: Int32, _ deliver: (SandboxDenial) -> Void) {
        defer { Glibc.close(descriptor) }
        var record = [UInt8](repeating: 0, count: SandboxDenial.recordSize)
        while true {
            var filled = 0
            while filled < record.count {
                let count = record.withUnsafeMutableBytes { buffer in
                    buffer.baseAddress.map { Glibc.read(descriptor, $0 + filled, buffer.count - filled) } ?? 0
                }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }
                filled += count
            }
            if let denial = SandboxDenial(record: record) { deliver(denial) }
        }
    }

    /// The longest line delivered whole; a longer one is delivered in pieces of this many bytes.
    static let longestLine = 65_536

    /// Splits what the worker prints on `descriptor` into lines for `deliver`.
    private static func readLines(_ descriptor: Int32, of process: ChildProcess, _ deliver: (String) -> Void) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        // Only the bytes just read are searched, and a line without an end comes in pieces: a
        // plugin printing one endless line costs the host no more than many short ones.
        while let count = try? process.read(descriptor, into: &chunk), count > 0 {
            var start = 0
            for index in 0..<count where chunk[index] == UInt8(ascii: "\n") {
                pending += chunk[start..<index]
                deliver(String(decoding: pending, as: UTF8.self))
                pending.removeAll(keepingCapacity: true)
                start = index + 1
            }
            pending += chunk[start..<count]
            while pending.count >= longestLine {
                deliver(String(decoding: pending.prefix(longestLine), as: UTF8.self))
                pending.removeFirst(longestLine)
            }
        }
        if !pending.isEmpty { deliver(String(decoding: pending, as: UTF8.self)) }
    }
}
