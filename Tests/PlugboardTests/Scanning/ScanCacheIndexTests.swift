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
        // "/e\u{301}x" (e, then a combining accent) comes before "/éa" (0xC3 0xA9) in bytes, after it as
        // `String`s, which compare canonical forms.
        let paths = ["/a", "/a/b", "/ab", "/b", "/é", "/\u{FFFF}", "/e\u{301}x", "/éa"] + (0..<40).map { "/lib/p\($0 / 10)\($0 % 10).so" }
        let sorted = paths.sorted { $0.precedesInByteOrder($1) }
        #expect(sorted != paths.sorted(), "the test needs names whose byte order is not their `String` order")
        let index = try Self.index(sorted.enumerated().map { ScanCacheRecord(key: Self.key($1, inode: UInt64($0)), entry: nil) })
        for (inode, path) in sorted.enumerated() {
            let record = try #require(index.record(at: path), "\(path)")
            #expect(record.key == Self.key(path, inode: UInt64(inode)) && record.kind == .checked)
        }
        // "/éx" is the same `String` as "/e\u{301}x", but not the same bytes: not the same file name.
        for missing in ["", "/", "/aa", "/a/", "/c", "/lib/p40.so", "/lib/p0.so", "/e\u{301}", "/éx"] {
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

    enum Damage: String, CaseIterable {
        case cutShort, countPastTheRecords, pathPastTheEnd, unknownKind
    }

    /// Damaged bytes are an error or a record not found, never a crash or a read out of bounds.
    @Test(arguments: Damage.allCases)
    func damagedBytesAreAnErrorOrNoRecord(_ damage: Damage) throws {
        var encoder = WireEncoder()
        ScanCacheRecord(key: Self.key("/one.so"), entry: nil).write(to: &encoder)
        var bytes = encoder.bytes
        var count: UInt32 = 1
        switch damage {
        case .cutShort: bytes.removeLast(10)
        case .countPastTheRecords: count = .max
        case .pathPastTheEnd: bytes.replaceSubrange(0..<4, with: [0xFF, 0xFF, 0xFF, 0x00])
        case .unknownKind: bytes[4 + "/one.so".utf8.count + ScanCacheRecord.bytesBetweenPathAndBody - 1] = 9
        }
        var decoder = WireDecoder(bytes)
        if damage == .unknownKind {
            let index = try ScanCacheIndex(bytes, count: count, from: &decoder)
            #expect(index.record(at: "/one.so") == nil && index.records.isEmpty)
        } else {
            #expect(throws: WorkerProtocolError.self) { try ScanCacheIndex(bytes, count: count, from: &decoder) }
        }
    }
}
