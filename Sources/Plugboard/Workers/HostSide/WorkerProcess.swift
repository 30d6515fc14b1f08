import Dispatch
import Foundation
import Glibc
import PlugboardChildProcess
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
    /// The socket to the worker.
    let channel: WorkerChannel
    /// Left by each output reader at the end of its stream.
    private let readers = DispatchGroup()
    /// How long ``terminate()`` waits for the last printed lines once the worker is gone (a child
    /// the plugin started may hold its output open for longer).
    private static let lastLinesWait = DispatchTimeInterval.seconds(1)

    /// Starts `worker` for `library` with `environment` (the host's, plus the worker's own
    /// variables); its printed lines go to `output`.
    init(worker: String, library: String, environment: [String: String],
         output: @escaping PluginHost.OutputHandler) throws(LoadFailure) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw LoadFailure(.open, "cannot make the worker's channel", systemError: Errno(rawValue: errno).description)
        }
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
        channel = WorkerChannel(descriptor: FileDescriptor(rawValue: pair[0]))
        for (descriptor, stream) in [(process.output, PluginOutputLine.Stream.stdout), (process.errorOutput, .stderr)] {
            guard let descriptor else { continue }
            let (process, readers) = (self.process, self.readers)
            readers.enter()
            Thread.detachNewThread {
                Self.readLines(descriptor, of: process) { output(PluginOutputLine(source: library, stream: stream, text: $0)) }
                readers.leave()
            }
        }
    }

    deinit {
        process.stop()
    }

    /// Kills the worker if it still runs, and reaps it.
    func stop() {
        process.stop()
    }

    /// Shuts the channel down, then gives a worker still there SIGTERM, a short wait, and SIGKILL;
    /// returns once what it printed was delivered (at most ``lastLinesWait`` after it is gone).
    func terminate() {
        try? channel.shutdown()
        if (try? process.reapIfEnded()) == nil {
            try? process.signal(SIGTERM)
            for _ in 0..<20 where (try? process.reapIfEnded()) == nil { usleep(10_000) }
        }
        process.stop()
        _ = readers.wait(timeout: .now() + Self.lastLinesWait)
    }

    /// Why the channel ended with `error`: the worker's own end (a signal or an exit status),
    /// or, when it still runs a second later, a broken channel.
    func ending(after error: WorkerProtocolError) -> WorkerEnding {
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
