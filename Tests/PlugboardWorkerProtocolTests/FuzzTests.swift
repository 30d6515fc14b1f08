import PlugboardWorkerProtocol
import Testing

/// Random and mutated frames: decoding either gives a message that encodes
/// back to the very same bytes (one spelling per message) or a typed error.
@Suite struct FuzzTests {
    /// SplitMix64: a fixed seed makes every run try the same inputs.
    private struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Decodes `frame`; returns whether it was a message (which must then encode to the same bytes).
    @discardableResult
    private func check(_ frame: [UInt8]) throws -> Bool {
        let received: ReceivedMessage
        do {
            received = try WorkerMessage.decode(frame: frame)
        } catch {
            return false  // typed: WorkerProtocolError, the only thing decoding may throw
        }
        #expect(try received.message.encodedFrame(requestID: received.requestID) == frame)
        return true
    }

    @Test func randomBytesWithAPlausibleLength() throws {
        var generator = SeededGenerator(state: 7)
        for _ in 0..<20_000 {
            let payload = (0..<Int.random(in: 0...48, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Mostly well-formed lengths with a known kind, so decoding gets past the header.
            var bytes = payload
            if !bytes.isEmpty && Bool.random(using: &generator) {
                bytes[0] = WorkerMessage.Kind.allCases.randomElement(using: &generator)?.rawValue ?? 0
            }
            let length = Bool.random(using: &generator) ? UInt32(bytes.count) : UInt32.random(in: 0...64, using: &generator)
            try check((0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) } + bytes)
        }
    }

    @Test func mutatedValidFrames() throws {
        var generator = SeededGenerator(state: 42)
        let frames = try Samples.messages.map { try $0.message.encodedFrame(requestID: $0.requestID) }.filter { $0.count < 4096 }
        try #require(frames.count > 20)
        var decoded = 0
        for _ in 0..<20_000 {
            var frame = try #require(frames.randomElement(using: &generator))
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: frame[Int.random(in: 0..<frame.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                case 1 where frame.count > 1: frame.removeLast(Int.random(in: 1..<frame.count, using: &generator))
                default: frame.append(UInt8.random(in: 0...255, using: &generator))
                }
            }
            if try check(frame) { decoded += 1 }
        }
        // Both paths ran: some mutations still spell a message, most do not.
        #expect(decoded > 100 && decoded < 10_000)
    }
}
