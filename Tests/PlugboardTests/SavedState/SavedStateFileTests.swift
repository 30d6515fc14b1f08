import Plugboard
import Testing

/// The state file format: what is written reads back, and no damage to the bytes, however
/// made, is ever taken for a state or crashes the reader.
@Suite struct SavedStateFileTests {
    static let sample = SavedStateFile(pluginID: "com.example.counter", pluginVersion: "2.1-β",
                                       savedAtNanoseconds: 1_795_000_000_123_456_789, state: Array("count 42\u{0}\u{FF}".utf8))

    @Test func aStateReadsBackAsWritten() throws {
        #expect(try SavedStateFile.decode(Self.sample.encoded()) == Self.sample)
        let empty = SavedStateFile(pluginID: "a.b", pluginVersion: "", savedAtNanoseconds: 0, state: [])
        #expect(try SavedStateFile.decode(empty.encoded()) == empty)
    }

    @Test func theChecksumIsCRC32() {
        // CRC-32 of "123456789" is 0xCBF43926 (the standard check value); the file's last 4 bytes
        // are the CRC-32 of every byte before them, little-endian.
        let bytes = Self.sample.encoded()
        let body = Array(bytes.dropLast(4))
        let stored = bytes.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(stored == Self.crc32(body))
        #expect(Self.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func everyTruncationIsRefusedWithACause() {
        let bytes = Self.sample.encoded()
        for length in 0..<bytes.count {
            #expect(throws: SavedStateFileError.self, "truncated to \(length) bytes") {
                try SavedStateFile.decode(Array(bytes.prefix(length)))
            }
        }
        #expect(throws: SavedStateFileError.notAStateFile) { try SavedStateFile.decode([]) }
    }

    @Test func everyBitFlipIsRefused() {
        let bytes = Self.sample.encoded()
        for index in bytes.indices {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[index] ^= UInt8(1) << UInt8(bit)
                #expect(throws: SavedStateFileError.self, "bit \(bit) of byte \(index) flipped") {
                    try SavedStateFile.decode(damaged)
                }
            }
        }
    }

    @Test func foreignFilesAreNamedForWhatTheyAre() {
        var bytes = Self.sample.encoded()
        #expect(throws: SavedStateFileError.notAStateFile) { try SavedStateFile.decode(Array("{\"count\": 42}".utf8)) }
        #expect(throws: SavedStateFileError.trailingBytes(1)) { try SavedStateFile.decode(bytes + [0]) }
        bytes[8] = 2  // the format version
        #expect(throws: SavedStateFileError.unknownFormat(2)) { try SavedStateFile.decode(bytes) }
    }

    /// A file may hold no more than a plugin may save: a plugin that counts on `PB_SAVED_STATE_MAX_SIZE`,
    /// or on the longest version a descriptor has, never gets more.
    @Test func aFieldOverItsLimitIsRefused() {
        let limit = SavedStateFile.maximumStateSize
        let large = SavedStateFile(pluginID: "a.b", pluginVersion: "1", savedAtNanoseconds: 0, state: [UInt8](repeating: 7, count: limit + 1))
        #expect(throws: SavedStateFileError.overLimit(field: "state", bytes: limit + 1, limit: limit)) { try SavedStateFile.decode(large.encoded()) }
        let longest = SavedStateFile(pluginID: "a.b", pluginVersion: String(repeating: "v", count: PluginDescriptor.maximumTextLength),
                                     savedAtNanoseconds: 0, state: [UInt8](repeating: 7, count: limit))
        #expect(throws: Never.self) { try SavedStateFile.decode(longest.encoded()) }
        let version = SavedStateFile(pluginID: "a.b", pluginVersion: String(repeating: "v", count: PluginDescriptor.maximumTextLength + 1),
                                     savedAtNanoseconds: 0, state: [])
        #expect(throws: SavedStateFileError.overLimit(field: "plugin version", bytes: PluginDescriptor.maximumTextLength + 1,
                                                      limit: PluginDescriptor.maximumTextLength)) { try SavedStateFile.decode(version.encoded()) }
    }

    @Test func randomBytesAfterTheMagicNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        let magic = Array("PBSTATE".utf8) + [0]
        for _ in 0..<2_000 {
            let noise = (0..<Int.random(in: 0..<64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(throws: SavedStateFileError.self) { try SavedStateFile.decode(magic + [1, 0] + noise) }
        }
    }

    /// A bitwise CRC-32 (IEEE), independent of the table-driven one under test.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc = ~UInt32(0)
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
