import Synchronization
import Testing
@testable import Plugboard

/// The lines a worker sends during a load that name a plugin not known yet are held until the load's
/// report, within a count and a size: lines past either are delivered at once, checked.
@Suite struct WorkerLogCheckTests {
    /// Five lines of 1 MiB each naming a plugin the library does not register: four are held (4 MiB),
    /// the fifth is delivered at once, marked; the load's end delivers the four, marked.
    @Test func linesPastTheHeldSizeAreDeliveredAtOnce() {
        final class Lines: Sendable { let delivered = Mutex<[PluginLogRecord]>([]) }
        let lines = Lines()
        let check = WorkerLogCheck { record in lines.delivered.withLock { $0.append(record) } }
        check.loading()
        let long = String(repeating: "a", count: (1 << 20) - 1)  // with its digit, 1 MiB a line
        for index in 1...5 {
            check.take(PluginLogRecord(source: "lib.so", plugin: "com.example.forged", level: .info, message: "\(index)" + long))
        }
        let atOnce = lines.delivered.withLock { $0 }
        #expect(atOnce.map { $0.message.prefix(1) } == ["5"], "\(atOnce.count) lines delivered during the load")
        check.loaded([PluginID(unchecked: "com.example.real")])
        let all = lines.delivered.withLock { $0 }
        #expect(all.map { $0.message.prefix(1) } == ["5", "1", "2", "3", "4"])
        let mark = PluginLogRecord.mark(unknownPlugin: "com.example.forged")
        #expect(all.allSatisfy { $0.message.contains(mark) })
    }
}
