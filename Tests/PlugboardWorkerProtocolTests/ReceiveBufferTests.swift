import Glibc
@testable import PlugboardWorkerProtocol
import SystemPackage
import Testing

/// The receive buffer's memory follows the bytes a peer sent, not the length it announced.
@Suite struct ReceiveBufferTests {
    /// A prefix announcing the largest payload, then 100 bytes: the buffer grows to about a MiB
    /// past them, not to 64 MiB; the frame, once it all comes, is whole.
    @Test func aFrameAnnouncedButNotSentTakesNoMemoryForItsLength() throws {
        let (writer, reader) = try socketPair()
        defer { try? writer.close(); try? reader.close() }
        let length = WireFormat.maximumPayloadLength
        let prefix = (0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) }
        _ = try (prefix + [UInt8](repeating: 7, count: 100)).withUnsafeBytes { try writer.write($0) }
        var buffer = ReceiveBuffer()
        while try buffer.fill(from: reader, waiting: false) == .bytes {}
        #expect(buffer.bytes.count <= 2 << 20, "\(buffer.bytes.count) bytes for 104 received")
        #expect(try buffer.bufferedPayload() == nil)
    }
}
