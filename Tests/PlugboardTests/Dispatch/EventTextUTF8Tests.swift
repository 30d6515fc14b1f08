import Foundation
import Synchronization
import Testing
@testable import Plugboard

/// The C ABI's promise that every text the host passes is UTF-8 holds for an event's text given as
/// bytes: a C plugin, in process and in a worker, is handed the bytes repaired with U+FFFD, as
/// every SDK lends event texts without checking them.
@Suite struct EventTextUTF8Tests {
    @Test(arguments: [false, true])
    func bytesThatAreNotUTF8ReachACPluginRepaired(inWorker: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let library = try PluginCompiler.fixture("hex.so", in: directory, [#"FIX_ID="com.example.hex""#, "FIX_OPEN_URL=1", "FIX_OPEN_URL_HEX"])
        let messages = Mutex<[String]>([])
        let host = PluginHost(isolation: inWorker ? .workers(worker: TestPaths.worker) : .inProcess) { record in
            guard record.plugin == "com.example.hex" else { return }  // not the host's own (a sandbox warning)
            messages.withLock { $0.append(record.message) }
        }
        defer { host.shutdown() }
        try #require(host.loadLibrary(at: library).status == .loaded)
        // A stray continuation byte, a truncated sequence, an encoded surrogate and a byte never in UTF-8.
        let report = host.dispatch(.openURL(url: EventText(bytes: [0x62, 0xFF, 0x63]),
                                            options: EventText(bytes: [0x80, 0xC3, 0x28, 0xED, 0xA0, 0x80])))
        #expect(report.failures.isEmpty, "\(report)")
        let replacement = "efbfbd"
        #expect(messages.withLock { $0 } == ["open-url hex 62\(replacement)63 \(replacement)\(replacement)28\(String(repeating: replacement, count: 3))"],
                "\(messages.withLock { $0 })")
    }
}
