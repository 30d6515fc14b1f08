import CPlugboard
import Foundation
import Glibc
import PlugboardWorkerProtocol
import SystemPackage
import Testing
@testable import Plugboard

/// A worker's own requests to its host (`files`, `invoke`), over a real socket pair.
@Suite struct WorkerRequestsTests {
    /// A request too large for one frame is refused before a byte is sent, with the reply the host
    /// would give; the channel stays, and the next request gets the host's answer.
    @Test func aRequestTooLargeForOneFrameIsRefusedAndTheChannelStays() throws {
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        let worker = WorkerChannel(descriptor: FileDescriptor(rawValue: pair[0]))
        let host = WorkerChannel(descriptor: FileDescriptor(rawValue: pair[1]))
        let requests = WorkerRequests(sending: worker, reading: worker, route: { _ in }, ended: {})
        let reader = Thread { requests.readUntilEnd() }
        reader.start()
        defer {
            worker.close()
            host.close()
        }
        let data = [UInt8](repeating: 0, count: WireFormat.maximumPayloadLength)
        let refused = requests.send(.files(operation: .write, path: "tmp/x", secondPath: "", data: data, flags: 0))
        guard case .serviceReply(let status, let payload, let message)? = refused else {
            Issue.record("no refusal: \(String(describing: refused))")
            return
        }
        #expect(status == PB_ERR_INVALID_ARGUMENT && payload.isEmpty)
        #expect(message.hasPrefix("write: the request is ") && message.hasSuffix(" one frame carries"), "\(message)")
        let invoke = requests.send(.invoke(function: "com.example.x.f", depth: 1, arguments: [.bytes(data)]))
        #expect(invoke.map { if case .invokeReply(.failure(PB_ERR_INVALID_ARGUMENT, let text)) = $0 { text.hasPrefix("com.example.x.f: ") } else { false } }
                == true, "\(String(describing: invoke))")

        let answering = Thread {
            guard let received = try? host.receive() else { return }
            try? host.send(.serviceReply(status: PB_OK, payload: [1], message: ""), requestID: received.requestID)
        }
        answering.start()
        #expect(requests.send(.files(operation: .exists, path: "tmp", secondPath: "", data: [], flags: 0))
                == .serviceReply(status: PB_OK, payload: [1], message: ""))
    }
}
