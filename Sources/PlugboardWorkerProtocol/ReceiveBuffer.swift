import Glibc
import PlugboardSystem
import SystemPackage

/// The bytes read from a channel but not decoded yet: reads take whatever the
/// peer has sent (several frames, or part of one), and frames are decoded in
/// place, so a message costs one read at best and no copy of its payload.
struct ReceiveBuffer {
    /// Room for a few small frames (calls, answers, log lines), grown for a
    /// larger one; small because a host holds one per worker.
    private static let initialSize = 4 << 10
    /// Past this size, an emptied buffer goes back to `initialSize`, so one
    /// large frame does not pin its memory for the channel's life.
    private static let retainedSize = 1 << 20
    /// How far past the bytes buffered the storage must reach for a frame in progress: a large frame's
    /// memory follows the bytes that came (at most twice them and this step, as it grows by doubling),
    /// not the length its prefix announced (which a peer may announce and never send).
    private static let growthStep = 1 << 20

    /// The socket's receive timeout (`SO_RCVTIMEO`) as ``WorkerChannel/receive(idleLimit:)`` last
    /// set it (nil: none), kept with the buffer so the receiver who reads it holds both.
    var readTimeout: Duration?

    private var storage = [UInt8](repeating: 0, count: initialSize)
    private var start = 0
    private var end = 0

    /// The range of the next whole payload in `bytes`, or nil while it is incomplete.
    func bufferedPayload() throws(WorkerProtocolError) -> Range<Int>? {
        guard let length = try announcedLength() else { return nil }
        let payloadStart = start + WireFormat.lengthPrefixSize
        guard end - payloadStart >= length else { return nil }
        return payloadStart..<(payloadStart + length)
    }

    /// The buffer the ranges index.
    var bytes: [UInt8] { storage }

    /// Drops everything up to `index`, the end of a decoded payload.
    mutating func consume(upTo index: Int) {
        start = index
        guard start == end else { return }
        start = 0
        end = 0
        if storage.count > Self.retainedSize {
            storage = [UInt8](repeating: 0, count: Self.initialSize)
        }
    }

    /// Gives back the storage, for a channel that will read no more.
    mutating func release() {
        storage = []
        start = 0
        end = 0
    }

    /// What a read gave.
    enum Filled {
        /// Bytes were added.
        case bytes
        /// The stream ended.
        case endOfStream
        /// Nothing was there yet (a read that does not wait).
        case nothingYet
    }

    /// Reads what the descriptor has, making room for the frame in progress; with `waiting`
    /// false, a read that returns at once when nothing is there. Nothing yet also when a waiting
    /// read ran past the socket's receive timeout.
    mutating func fill(from descriptor: FileDescriptor, waiting: Bool = true) throws(WorkerProtocolError) -> Filled {
        try makeRoom(for: frameSizeInProgress())
        let (free, offset) = (storage.count - end, end)
        let count: Int
        do {
            count = try storage.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in
                    let start = buffer.baseAddress.map { $0 + offset }
                    return try systemCall {
                        waiting ? read(descriptor.rawValue, start, free) : recv(descriptor.rawValue, start, free, Int32(MSG_DONTWAIT))
                    }
                }
            }.get()
        } catch .connectionReset {
            return .endOfStream
        } catch .wouldBlock {
            return .nothingYet
        } catch {
            throw .system(call: "read", error)
        }
        end += count
        return count > 0 ? .bytes : .endOfStream
    }

    /// The error for a stream that ended here: closed between frames or inside one.
    func endOfStreamError() -> WorkerProtocolError {
        let buffered = end - start
        guard buffered > 0 else { return .closedByPeer }
        let expected = (try? frameSizeInProgress()) ?? WireFormat.lengthPrefixSize
        return .truncatedFrame(received: buffered, expected: expected)
    }

    /// The payload length of the frame at `start`, once its prefix is buffered.
    private func announcedLength() throws(WorkerProtocolError) -> Int? {
        let buffered = end - start
        guard buffered >= WireFormat.lengthPrefixSize else { return nil }
        return try WireFormat.payloadLength(prefix: storage, at: start, available: buffered)
    }

    /// Bytes of the frame at `start`: the prefix alone until it is buffered.
    private func frameSizeInProgress() throws(WorkerProtocolError) -> Int {
        WireFormat.lengthPrefixSize + (try announcedLength() ?? 0)
    }

    /// Moves the buffered bytes to the front and grows the storage toward a frame of `frameSize`
    /// bytes, to ``growthStep`` past what is buffered or twice its size, within the frame, leaving room to read.
    private mutating func makeRoom(for frameSize: Int) {
        if start > 0 && storage.count - start < max(frameSize, Self.initialSize) {
            storage.withUnsafeMutableBytes { buffer in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
            }
            end -= start
            start = 0
        }
        let needed = start + min(frameSize, end - start + Self.growthStep)
        guard storage.count < needed else { return }
        // Twice as large at least (within the frame), so a large frame is copied a few times, not once a
        // step; made with memcpy and memset, where appending zeros element by element took seconds
        // for a 64 MiB frame in a debug build.
        let grown = max(needed, min(2 * storage.count, start + frameSize))
        let old = storage
        storage = [UInt8](unsafeUninitializedCapacity: grown) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            let kept = old.withUnsafeBytes { kept in
                if let from = kept.baseAddress { memcpy(base, from, kept.count) }
                return kept.count
            }
            memset(base + kept, 0, grown - kept)
            count = grown
        }
    }
}
