import Dispatch
import Synchronization
import Testing
@testable import Plugboard

/// The count that bounds a worker's invocations running at once (``WorkerInvokeServer/concurrentLimit``).
@Suite struct RunningCountTests {
    /// Up to the limit enters; one more is refused until one leaves.
    @Test func entersUpToTheLimitThenAfterALeave() {
        let running = RunningCount()
        for _ in 0..<WorkerInvokeServer.concurrentLimit { #expect(running.enter(below: WorkerInvokeServer.concurrentLimit)) }
        #expect(!running.enter(below: WorkerInvokeServer.concurrentLimit))
        running.leave()
        #expect(running.enter(below: WorkerInvokeServer.concurrentLimit))
    }

    /// Many threads entering at once never get more than the limit in.
    @Test func concurrentEntriesNeverPassTheLimit() {
        let running = RunningCount()
        let admitted = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 1_000) { _ in
            if running.enter(below: 10) { admitted.add(1, ordering: .relaxed) }
        }
        #expect(admitted.load(ordering: .relaxed) == 10)
    }
}
