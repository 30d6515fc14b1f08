import Foundation
import Glibc
import Plugboard
import Testing

/// A plugin that takes its worker's channel between events and asks the host for replies nobody
/// reads: the host's next call to it, which waits behind the stalled reply, ends within the stall
/// limit with the worker given up, and the run goes on (it waited for ever on the channel before,
/// and not even SIGTERM ended it).
@Suite struct WorkerStallTests {
    @Test func aWorkerThatStopsReadingIsEndedAndTheRunGoesOn() throws {
        let workspace = try Workspace("worker-stall")
        defer { workspace.remove() }
        try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["STEAL_CHANNEL_AT=AT_WILL_FINISH"])
        let process = try LiveProcess(try CLI.binary(), ["run", "--isolation", "process", "--call-timeout", "2",
                                                         "--plugin-dir", workspace.plugins, "--container", workspace.root.file("box"),
                                                         "--events", "-"])
        defer { process.stop() }
        try #require(process.waitForOutput(containing: "did-finish-launching → ", timeout: .seconds(60)),
                     "the launch never finished:\n\(process.output)")
        // The plugin's thread takes the channel 200 ms after will-finish-launching; its replies stall
        // the host's channel within milliseconds of that. Waiting 2 s puts the call behind the stall.
        usleep(2_000_000)
        try process.send(#"{"event":"open-url","url":"myapp://x"}"# + "\n")
        #expect(process.waitForOutput(containing: "open-url myapp://x → ", timeout: .seconds(60)),
                "the call behind the stalled reply never ended:\n\(process.output)")
        #expect(process.output.contains("com.example.hostile  FAILED"), "the hostile plugin's failure is not named:\n\(process.output)")
        #expect(process.output.contains("it stopped reading its channel"), "the cause is not named:\n\(process.output)")
        try process.send(#"{"event":"memory-warning"}"# + "\n")
        #expect(process.waitForOutput(containing: "memory-warning → delivered", timeout: .seconds(60)),
                "the run stopped after the stalled worker:\n\(process.output)")
    }
}
