import Foundation
import Synchronization
import Testing
@testable import Plugboard

/// The bus's refusals as values (``BusRefusal``), in process and from a worker: the same
/// refusals the host logs, typed, whatever note the log line carries.
@Suite struct BusRefusalTests {
    static let isolations: [PluginIsolation] = [.workers(worker: TestPaths.worker), .inProcess]

    @Test(arguments: isolations)
    func eachLoggedRefusalIsReportedTypedTheSixteenthToo(isolation: PluginIsolation) throws {
        let workspace = try Workspace("bus-refusal-values")
        defer { workspace.remove() }
        let library = try PluginCompiler.hostile("hostile.so", in: workspace.plugins, ["BAD_BUS_CALLS_AT=AT_OPEN_URL",
                                                                                       "BAD_BUS_REPEAT=1000"])
        let logged = Mutex<[String]>([])
        let refused = Mutex<[BusRefusal]>([])
        let host = PluginHost(callTimeout: .seconds(30), isolation: isolation,
                              logHandler: { record in logged.withLock { $0.append(record.message) } })
        defer { host.shutdown() }
        host.loader.busRefusalHandler = { refusal in refused.withLock { $0.append(refusal) } }
        #expect(host.loadLibrary(at: library).status == .loaded)
        host.open(url: "myapp://x")

        let refusals = refused.withLock { $0 }
        #expect(refusals.count == RefusalLogBudget.limit, "\(refusals)")
        #expect(refusals.allSatisfy { $0.library == library })
        let calls = refusals.prefix(8).map { "\($0.call.rawValue) \($0.plugin ?? "-") \($0.name ?? "-")" }
        #expect(calls == ["post com.example.hostile no dots here", "post com.example.hostile com.example.x",
                          "post com.example.hostile com.example.x", "post - com.example.x",
                          "post com.example.stranger com.example.x", "observe com.example.hostile com.example.x",
                          "observe com.example.hostile com.example.x", "stop_observing - -"])
        #expect(refusals.first?.reason.hasPrefix("post: the notification name 'no dots here' is not valid") == true,
                "\(refusals.first?.reason ?? "")")
        // The log's last refusal carries the budget's note; its value is the same refusal as the first.
        let lines = logged.withLock { $0 }.filter { $0.contains("; refused") }
        #expect(lines.count == RefusalLogBudget.limit)
        #expect(lines.last?.hasSuffix("; refused (later refused notification calls of this library are not logged)") == true,
                "\(lines.last ?? "")")
        #expect(refusals.last == refusals.first)
        #expect(zip(refusals, lines).allSatisfy { $1.hasPrefix($0.reason + "; refused") }, "\(lines)")
    }
}
