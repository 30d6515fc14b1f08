import Glibc
import Testing
@testable import Plugboard

/// Whether a worker's end was its own between calls (``PendingRequests/endedIdle``): it ended by
/// itself while no request it had received waited.
@Suite struct PendingRequestsTests {
    private static let crash = WorkerEnding.crashed(signal: SIGSEGV)

    @Test func aWorkerThatEndsWhileNothingWaitsEndedBetweenCalls() {
        let pending = PendingRequests()
        pending.end(Self.crash, byThePeer: true)
        #expect(pending.endedIdle)
    }

    @Test func aWorkerThatEndsWhileARequestWaitsEndedInIt() throws {
        let pending = PendingRequests()
        _ = try pending.open(functionCall: false).get()
        pending.end(Self.crash, byThePeer: true)
        #expect(!pending.endedIdle)
    }

    /// A request whose send found the channel closed never reached the worker: it did not end it,
    /// unless another request waited.
    @Test func aRequestThatCouldNotBeSentDidNotEndTheWorker() throws {
        let alone = PendingRequests()
        let unsent = try alone.open(functionCall: false).get()
        alone.end(Self.crash, byThePeer: true, unsent: unsent)
        #expect(alone.endedIdle)

        let busy = PendingRequests()
        _ = try busy.open(functionCall: true).get()
        let another = try busy.open(functionCall: false).get()
        busy.end(Self.crash, byThePeer: true, unsent: another)
        #expect(!busy.endedIdle)
    }

    /// An end the host made (a timeout, an interruption, a broken rule) is never the worker's own.
    @Test func anEndTheHostMadeIsNotBetweenCalls() {
        let pending = PendingRequests()
        pending.end(.interrupted)
        #expect(!pending.endedIdle)
        pending.end(Self.crash, byThePeer: true)
        #expect(!pending.endedIdle, "the first reason wins")
        #expect(pending.ending == .interrupted)
    }
}
