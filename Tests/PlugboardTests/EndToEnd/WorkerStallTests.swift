import Foundation
import Glibc
import Plugboard
import Testing

/// Plugins that take their worker's channels away, so that nothing reads what the host sends. One
/// also asks the host for replies nobody reads: the host gives the worker up within the stall limit,
/// its next call to it ends then, well before its timeout, and the run goes on (it waited for ever on
/// the channel before, and not even SIGTERM ended it). With no call timeout, a send that waits for
/// the other still stops at SIGINT.
@Suite struct WorkerStallTests {
    @Test func aWorkerThatStopsReadingIsEndedAndTheRunGoesOn() throws {
        let workspace = try Workspace("worker-stall")
        defer { workspace.remove() }
        let process = try Self.launched(in: workspace, "STEAL_CHANNEL_AT=AT_WILL_FINISH", callTimeout: "60")
        defer { process.stop() }
        // The plugin's thread takes the channels 200 ms after will-finish-launching; the replies stall
        // the concurrent channel within milliseconds of that. The call comes 2 s later, within the stall.
        usleep(2_000_000)
        try process.send(#"{"event":"open-url","url":"myapp://x"}"# + "\n")
        #expect(process.waitForOutput(containing: "open-url myapp://x → ", timeout: .seconds(30)),
                "the call to the stalled worker did not end before its timeout:\n\(process.output)")
        #expect(process.output.contains("com.example.hostile  FAILED"), "the hostile plugin's failure is not named:\n\(process.output)")
        #expect(process.output.contains("it stopped reading its channel"), "the cause is not named:\n\(process.output)")
        try process.send(#"{"event":"memory-warning"}"# + "\n")
        #expect(process.waitForOutput(containing: "memory-warning → delivered", timeout: .seconds(60)),
                "the run stopped after the stalled worker:\n\(process.output)")
    }

    /// With no call timeout, a send waits for a worker that reads nothing as long as it takes, but not
    /// past a request to stop: SIGINT ends the run at once. (A frame larger than the socket takes,
    /// sent to a plugin that took its worker's channel away, waited for it, deaf to the signal.)
    @Test func aSendToAWorkerThatReadsNothingStopsAtSIGINT() throws {
        let workspace = try Workspace("worker-mute")
        defer { workspace.remove() }
        let process = try Self.launched(in: workspace, "MUTE_CHANNEL_AT=AT_WILL_FINISH", callTimeout: "0")
        defer { process.stop() }
        // The plugin's thread takes the channel 200 ms after will-finish-launching. A URL of 4 MiB is
        // more than the socket holds: its send waits for the worker to read.
        usleep(1_000_000)
        try process.send(#"{"event":"open-url","url":"myapp://"# + String(repeating: "x", count: 4 << 20) + "\"}\n")
        usleep(1_000_000)
        #expect(kill(process.pid, SIGINT) == 0)
        let exit = process.waitForExit(timeout: .seconds(10))
        #expect(!exit.timedOut, "still running 10 s after SIGINT:\n\(exit.output.suffix(2000))")
        #expect(exit.ending == .exit(128 + SIGINT), "ended with \(exit.ending)\n\(exit.output.suffix(2000))")
    }

    /// `plugboard run --events -` with the hostile plugin built with `action`, in a worker, past its
    /// launch; the caller stops it.
    private static func launched(in workspace: Workspace, _ action: String, callTimeout: String) throws -> LiveProcess {
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, [action])
        let process = try LiveProcess(try CLI.binary(), ["run", "--isolation", "process", "--call-timeout", callTimeout,
                                                         "--plugin-dir", workspace.plugins, "--container", workspace.root.file("box"),
                                                         "--events", "-"])
        guard process.waitForOutput(containing: "did-finish-launching → ", timeout: .seconds(60)) else {
            process.stop()
            throw TestFailure("the launch never finished:\n\(process.output)")
        }
        return process
    }
}
