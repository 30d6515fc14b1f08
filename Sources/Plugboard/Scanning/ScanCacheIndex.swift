import PlugboardWorkerProtocol

/// The records of one scan cache file, in byte order of their paths: found by a binary search of
/// the file's bytes and decoded when asked for. Opening the cache so notes where each record's
/// path lies, and makes no `String` and hashes nothing: a host that loads 1,000 libraries asks for
/// each record once, and a table of them would cost more than the checks it saves.
struct ScanCacheIndex {
    /// The file's bytes.
    private let bytes: [UInt8]
    /// Each record's path, as a range of `bytes`; each record starts 4 bytes before its path (the
    /// path's length) and ends where the next one starts, or at `end`.
    private let paths: [Range<Int>]
    /// Where the last record ends.
    private let end: Int

    /// An index of no record.
    init() {
        bytes = []
        paths = []
        end = 0
    }

    /// Indexes the `count` records `decoder`, over `bytes`, reads next. Throws when one runs past the
    /// end, a path is not UTF-8, or a path does not come after the one before in byte order.
    init(_ bytes: [UInt8], count: UInt32, from decoder: inout WireDecoder) throws(WorkerProtocolError) {
        var paths: [Range<Int>] = []
        paths.reserveCapacity(Int(min(count, UInt32(decoder.remaining / 4))))
        for _ in 0..<count {
            let path = try decoder.readLengthPrefixedRange("key.path")
            guard (try? UTF8Span(validating: bytes.span.extracting(path))) != nil else {
                throw .malformed(field: "key.path", cause: .invalidUTF8)
            }
            if let previous = paths.last, !Self.precedes(previous, path, in: bytes) {
                throw .malformed(field: "key.path", cause: .invalidValue(0))
            }
            paths.append(path)
            try decoder.skip(ScanCacheRecord.bytesBetweenPathAndBody, "key")
            _ = try decoder.readLengthPrefixedRange("body")
        }
        self.bytes = bytes
        self.paths = paths
        end = decoder.offset
    }

    /// The record at `path`, if the file has one that reads back.
    func record(at path: String) -> ScanCacheRecord? {
        var path = path
        let found = path.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { all in
                var (low, high) = (0, paths.count)
                while low < high {
                    let middle = (low + high) / 2
                    if UnsafeBufferPointer(rebasing: all[paths[middle]]).precedesInByteOrder(wanted) { low = middle + 1 } else { high = middle }
                }
                // The first path not before the one wanted: it is that one unless the one wanted comes before it.
                return low < paths.count && !wanted.precedesInByteOrder(UnsafeBufferPointer(rebasing: all[paths[low]])) ? low : nil
            }
        }
        return found.flatMap { record(at: $0, path: path) }
    }

    /// Every record that reads back, in byte order of their paths.
    var records: [ScanCacheRecord] {
        paths.indices.compactMap { index in record(at: index, path: String(decoding: bytes[paths[index]], as: UTF8.self)) }
    }

    /// The record at `index`, whose path is `path`.
    private func record(at index: Int, path: String) -> ScanCacheRecord? {
        let start = paths[index].lowerBound - 4
        var decoder = WireDecoder(bytes, range: start..<(index + 1 < paths.count ? paths[index + 1].lowerBound - 4 : end))
        return try? ScanCacheRecord.read(at: path, from: &decoder, in: bytes)
    }

    /// Whether the path at `lhs` comes before the one at `rhs` in byte order.
    private static func precedes(_ lhs: Range<Int>, _ rhs: Range<Int>, in bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { all in
            UnsafeBufferPointer(rebasing: all[lhs]).precedesInByteOrder(UnsafeBufferPointer(rebasing: all[rhs]))
        }
    }
}
