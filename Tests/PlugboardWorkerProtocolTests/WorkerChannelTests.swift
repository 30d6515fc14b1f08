import Glibc
import PlugboardWorkerProtocol
import SystemPackage
import Testing

/// A channel over a real socketpair: whole frames under concurrency, partial
/// reads, a peer that goes away, bounded waits.
@Suite struct WorkerChannelTests {
    /// A generous bound: a bug fails the test instead of hanging it.
    private let patience = Duration.seconds(60)

    private func receive(_ channel: WorkerChannel) throws -> ReceivedMessage {
        try #require(try channel.receive(idleLimit: patience), "no byte within \(patience)")
    }

    /// Writes `bytes` to a raw descriptor, `chunk` bytes per write.
    private func write(_ bytes: [UInt8], to descriptor: FileDescriptor, chunk: Int = .max) throws {
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            offset += try bytes[offset..<end].withUnsafeBytes { try descriptor.write($0) }
        }
    }

    /// A peer that reads nothing: a send with a stall limit gives up after it (instead of waiting
    /// forever and holding the senders behind it), shuts the channel down, and the next send and
    /// the peer's read see it ended.
    @Test func aSendThePeerNeverReadsGivesUpAfterTheStallLimit() throws {
        let (a, b) = try socketPair()
        let host = WorkerChannel(descriptor: a, stallLimit: .milliseconds(300))
        let worker = WorkerChannel(descriptor: b)
        let large = WorkerMessage.log(pluginID: nil, level: 1, message: String(repeating: "x", count: 8 << 20))
        let start = ContinuousClock.now
        #expect(throws: WorkerProtocolError.stalled(.milliseconds(300))) { try host.send(large) }
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(300) && waited < patience, "\(waited)")
        #expect(throws: WorkerProtocolError.closedByPeer) { try host.send(.shutdown, requestID: 1) }
        // The peer reads the part that got through, then the end: a frame cut short.
        #expect(throws: WorkerProtocolError.self) { while true { _ = try worker.receive(idleLimit: patience) } }
    }

    /// A send given more patience than the stall limit waits for a peer that starts reading later;
    /// the longest patience there is, beyond `poll`'s range, overflows nothing.
    @Test func aPatientSendWaitsPastTheStallLimit() throws {
        let (a, b) = try socketPair()
        let host = WorkerChannel(descriptor: a, stallLimit: .milliseconds(300))
        let worker = WorkerChannel(descriptor: b)
        let large = WorkerMessage.log(pluginID: nil, level: 1, message: String(repeating: "x", count: 8 << 20))
        let reader = TestThread {
            usleep(1_000_000)
            let received = try? worker.receive(idleLimit: patience)
            #expect(received?.message == large)
        }
        #expect(throws: Never.self) { try host.send(large, patience: .seconds(Int64.max)) }
        reader.join()
        #expect(host.stall == nil)
    }

    /// A receive with an idle limit gives nil once no byte came for that long, then the next
    /// message; without a limit it waits as long as it takes again.
    @Test func anIdleLimitedReceiveEndsAfterTheLimitAndThenWaits() throws {
        let (host, worker) = try channelPair()
        let start = ContinuousClock.now
        #expect(try worker.receive(idleLimit: .milliseconds(200)) == nil)
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(150) && waited < patience, "\(waited)")
        try host.send(.shutdown, requestID: 7)
        #expect(try worker.receive(idleLimit: .milliseconds(200))?.requestID == 7)
        let sender = TestThread {
            usleep(400_000)
            #expect(throws: Never.self) { try host.send(.shutdown, requestID: 8) }
        }
        #expect(try worker.receive(idleLimit: nil)?.requestID == 8, "no limit: it waits past the earlier 200 ms")
        sender.join()
    }

    @Test func everySampleCrossesTheChannelIntact() throws {
        let (host, worker) = try channelPair()
        let sender = TestThread {
            for sample in Samples.messages {
                #expect(throws: Never.self) { try host.send(sample.message, requestID: sample.requestID) }
            }
        }
        for sample in Samples.messages {
            #expect(try receive(worker) == sample)
        }
        sender.join()
    }

    /// Message sizes for the concurrency test: every 25th is larger than the
    /// socket buffer, so the kernel takes it in parts.
    private static func size(_ index: Int) -> Int {
        index.isMultiple(of: 25) ? 160 << 10 : (index * 37) % 3000
    }

    @Test func concurrentSendersNeverInterleaveFrames() throws {
        let (worker, host) = try channelPair()
        let perThread = 300
        let names = ["A", "B"]
        let senders = names.map { name in
            TestThread {
                for index in 0..<perThread {
                    let message = WorkerMessage.log(
                        pluginID: name, level: Int32(index), message: String(repeating: name, count: Self.size(index)))
                    #expect(throws: Never.self) { try worker.send(message) }
                }
            }
        }
        var next = [String: Int32]()
        for _ in 0..<(perThread * names.count) {
            let received = try receive(host)
            guard case .log(let pluginID?, let level, let message) = received.message else {
                Issue.record("unexpected \(received.message.kind)")
                break
            }
            #expect(level == next[pluginID, default: 0])
            next[pluginID] = level + 1
            #expect(message == String(repeating: pluginID, count: Self.size(Int(level))))
        }
        #expect(next == ["A": Int32(perThread), "B": Int32(perThread)])
        senders.forEach { $0.join() }
    }

    @Test func aPeerWritingOneByteAtATimeIsReassembled() throws {
        let (raw, end) = try socketPair()
        let channel = WorkerChannel(descriptor: end)
        let samples = try Samples.messages.filter { try $0.message.encodedFrame(requestID: $0.requestID).count < 2048 }
        let bytes = try samples.flatMap { try $0.message.encodedFrame(requestID: $0.requestID) }
        let writer = TestThread {
            #expect(throws: Never.self) { try write(bytes, to: raw, chunk: 1) }
        }
        for sample in samples {
            #expect(try receive(channel) == sample)
        }
        writer.join()
        try raw.close()
    }

    @Test func aPeerClosingMidFrameIsATruncatedFrame() throws {
        let (raw, end) = try socketPair()
        let channel = WorkerChannel(descriptor: end)
        let frame = try WorkerMessage.load(path: "lib.so", allowInsecure: false).encodedFrame(requestID: 1)
        try write(Array(frame.prefix(12)), to: raw)
        try raw.close()
        #expect(throws: WorkerProtocolError.truncatedFrame(received: 12, expected: frame.count)) {
            try channel.receive()
        }
    }

    @Test func aPeerClosingInsideTheLengthPrefixIsATruncatedFrame() throws {
        let (raw, end) = try socketPair()
        let channel = WorkerChannel(descriptor: end)
        try write([7, 0], to: raw)
        try raw.close()
        #expect(throws: WorkerProtocolError.truncatedFrame(received: 2, expected: 4)) { try channel.receive() }
    }

    @Test func aPeerClosingBetweenFramesIsClosedByPeer() throws {
        let (raw, end) = try socketPair()
        let channel = WorkerChannel(descriptor: end)
        try write(try WorkerMessage.bye.encodedFrame(requestID: 1), to: raw)
        try raw.close()
        #expect(try receive(channel) == ReceivedMessage(.bye, requestID: 1))
        #expect(throws: WorkerProtocolError.closedByPeer) { try channel.receive() }
    }

    @Test func sendingToAClosedPeerIsClosedByPeerNotSIGPIPE() throws {
        let (raw, end) = try socketPair()
        let channel = WorkerChannel(descriptor: end)
        try raw.close()
        #expect(throws: WorkerProtocolError.closedByPeer) {
            try channel.send(.log(pluginID: nil, level: 2, message: "anyone there?"))
        }
    }

    @Test func anOversizedLengthPrefixIsRefusedWithoutWaitingForThePayload() throws {
        let (raw, end) = try socketPair()
        let channel = WorkerChannel(descriptor: end)
        try write([0xFF, 0xFF, 0xFF, 0x7F], to: raw)
        #expect(throws: WorkerProtocolError.frameTooLarge(length: 0x7FFF_FFFF, maximum: WireFormat.maximumPayloadLength)) {
            try channel.receive()
        }
        try raw.close()
    }

    @Test func aMalformedFrameOnTheChannelIsTyped() throws {
        let (raw, end) = try socketPair()
        let channel = WorkerChannel(descriptor: end)
        try write([9, 0, 0, 0, 0x42, 1, 0, 0, 0, 0, 0, 0, 0], to: raw)
        #expect(throws: WorkerProtocolError.malformed(field: "kind", cause: .unknownKind(0x42))) { try channel.receive() }
        try raw.close()
    }

    @Test func anIdleLimitedReceiveReturnsNilAndKeepsAPartialFrame() throws {
        let (raw, end) = try socketPair()
        let channel = WorkerChannel(descriptor: end)
        #expect(try channel.receive(idleLimit: .milliseconds(20)) == nil)
        let frame = try WorkerMessage.answer(.bool(true)).encodedFrame(requestID: 5)
        try write(Array(frame.prefix(7)), to: raw)
        #expect(try channel.receive(idleLimit: .milliseconds(20)) == nil)
        try write(Array(frame.dropFirst(7)), to: raw)
        #expect(try channel.receive(idleLimit: nil) == ReceivedMessage(.answer(.bool(true)), requestID: 5))
        try raw.close()
    }

    @Test func shutdownWakesABlockedReceiverAndEndsThePeersStream() throws {
        let (host, worker) = try channelPair()
        let blocked = TestThread {
            #expect(throws: WorkerProtocolError.closedByPeer) { try host.receive() }
        }
        // Whether the receiver is already blocked or not, it must see the end.
        try host.shutdown()
        blocked.join()
        #expect(throws: WorkerProtocolError.closedByPeer) { try worker.receive() }
    }

    @Test func closeEndsThePeersStreamAndRefusesEveryLaterUse() throws {
        let (host, worker) = try channelPair()
        #expect(!host.isClosed)
        host.close()
        #expect(host.isClosed)
        #expect(throws: WorkerProtocolError.closedByPeer) { try worker.receive() }
        #expect(throws: WorkerProtocolError.closedByPeer) { try host.send(.bye, requestID: 1) }
        #expect(throws: WorkerProtocolError.closedByPeer) { try host.receive() }
        #expect(throws: WorkerProtocolError.closedByPeer) { try host.shutdown() }
        host.close()
        #expect(host.isClosed)
    }

    @Test func aHandshakeAcceptsTheSameMajorAndRefusesAnother() throws {
        let (host, worker) = try channelPair()
        for (requestID, hostVersion) in [(UInt64(1), WorkerProtocolVersion.current), (2, WorkerProtocolVersion(major: 2, minor: 0))] {
            try host.send(.hello(protocolVersion: hostVersion, hostABIMajor: 1, hostABIMinor: 1), requestID: requestID)
            let hello = try receive(worker)
            guard case .hello(let peerVersion, _, _) = hello.message else {
                Issue.record("expected hello, got \(hello.message.kind)")
                return
            }
            try worker.send(.helloReply(protocolVersion: .current, workerPID: getpid()), requestID: hello.requestID)
            let reply = try receive(host)
            #expect(reply == ReceivedMessage(.helloReply(protocolVersion: .current, workerPID: getpid()), requestID: requestID))
            #expect(peerVersion == hostVersion)
            if hostVersion.major == WorkerProtocolVersion.current.major {
                try WorkerProtocolVersion.current.requireCompatible(peer: peerVersion)
            } else {
                #expect(throws: WorkerProtocolError.incompatibleVersion(peer: hostVersion, own: .current)) {
                    try WorkerProtocolVersion.current.requireCompatible(peer: peerVersion)
                }
            }
        }
    }
}
