@testable import Plugboard
import PlugboardWorkerProtocol
import Testing

/// The scan cache file's records, found by a binary search of their bytes and decoded when asked for.
@Suite struct ScanCacheIndexTests {
    static func key(_ path: String, inode: UInt64 = 1) -> ScanCacheKey {
        ScanCacheKey(path: path, device: 1, inode: inode, size: 100, modified: .seconds(1), changed: .seconds(2), hostABI: .host)
    }

    /// `records` written one after another, and the index of them.
    static func index(_ records: [ScanCacheRecord]) throws(WorkerProtocolError) -> ScanCacheIndex {
        var encoder = WireEncoder()
        for record in records { record.write(to: &encoder) }
        var decoder = WireDecoder(encoder.bytes)
        let index = try ScanCacheIndex(encoder.bytes, count: UInt32(records.count), from: &decoder)
        try decoder.requireEnd(of: "records")
        return index
    }

    @Test func everyPathIsFoundAndNoOther() throws {
        // Byte order: "/a" < "/a/b" < "/ab" < "/b" < "/é" (0xC3 0xA9) < "/\u{FFFF}"; `String`'s order agrees on none of it here but the ASCII.
        let paths = ["/a", "/a/b", "/ab", "/b", "/é", "/\u{FFFF}"] + (0..<40).map { "/lib/p\($0 / 10)\($0 % 10).so" }
        let sorted = paths.sorted { $0.precedesInByteOrder($1) }
        let index = try Self.index(sorted.enumerated().map { ScanCacheRecord(key: Self.key($1, inode: UInt64($0)), entry: nil) })
        for (inode, path) in sorted.enumerated() {
            let record = try #require(index.record(at: path), "\(path)")
            #expect(record.key == Self.key(path, inode: UInt64(inode)) && record.kind == .checked)
        }
        for missing in ["", "/", "/aa", "/a/", "/c", "/lib/p40.so", "/lib/p0.so", "/e\u{301}"] {
            #expect(index.record(at: missing) == nil, "\(missing)")
        }
        #expect(index.records.map(\.key.path) == sorted)
    }

    @Test func pathsOutOfByteOrderOrTwiceMakeTheFileCorrupt() {
        for paths in [["/b", "/a"], ["/a", "/a"], ["/é", "/z"]] {
            #expect(throws: WorkerProtocolError.self, "\(paths)") {
                try Self.index(paths.map { ScanCacheRecord(key: Self.key($0), entry: nil) })
            }
        }
    }

    @Test func aDamagedEntryIsAsGoodAsAbsentAndLeavesTheOthers() throws {
        let crash = ScanCacheRecord(key: Self.key("/crashed.so"), entry: .crashed(reason: LoadFailure(.`init`, "crashed")))
        var encoder = WireEncoder()
        crash.write(to: &encoder)
        ScanCacheRecord(key: Self.key("/other.so"), entry: .crashed(reason: LoadFailure(.`init`, "other"))).write(to: &encoder)
        var bytes = encoder.bytes
        // The first body's first string (the stage) gets a byte that is not UTF-8.
        let stage = 4 + "/crashed.so".utf8.count + ScanCacheRecord.bytesBetweenPathAndBody + 4 + 4
        bytes[stage] = 0xFF
        var decoder = WireDecoder(bytes)
        let index = try ScanCacheIndex(bytes, count: 2, from: &decoder)
        let damaged = try #require(index.record(at: "/crashed.so"))
        #expect(damaged.kind == .crashed && damaged.entry == nil)
        let other = try #require(index.record(at: "/other.so")?.entry)
        #expect(other.report(at: "/other.so").failure?.message.hasPrefix("other") == true)
    }
}
