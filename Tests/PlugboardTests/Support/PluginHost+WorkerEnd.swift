import Foundation
import Testing
@testable import Plugboard

extension PluginHost {
    /// The worker of `library`, once it ended by itself: a crash a plugin's own thread causes some
    /// time after a call, waited for up to a minute on a busy machine (polled, no fixed sleep).
    func workerEndedByItself(of library: String) throws -> WorkerConnection {
        let worker = try #require(loader.loaded.workers(loadedFrom: library).first)
        let deadline = ContinuousClock.now + .seconds(60)
        while worker.ending == nil && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
        return worker
    }
}
