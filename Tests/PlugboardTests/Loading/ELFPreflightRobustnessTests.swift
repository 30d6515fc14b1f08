import Foundation
import Testing
@testable import Plugboard

/// The ELF preflight reads offsets and sizes that a hostile file declares: on
/// hundreds of corrupted copies of a real library (header, program headers,
/// symbol and hash tables and dynamic section overwritten, or the file cut short) it never reads out
/// of bounds or crashes, and each verdict is one line. Nothing is `dlopen`ed.
@Suite struct ELFPreflightRobustnessTests {
    /// A small deterministic generator (xorshift64*), so a failure repeats.
    private struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 2_685_821_657_736_338_717
        }
    }

    @Test func corruptedLibrariesGetOneLineVerdicts() throws {
        let scratch = try TemporaryDirectory("plugboard-elf-fuzz")
        defer { scratch.remove() }
        func write(_ bytes: [UInt8]) throws -> String {
            try Data(bytes).write(to: URL(fileURLWithPath: scratch.file("library.so")))
            return scratch.file("library.so")
        }
        let good = Array(try FixtureCache.library(GoodPlugins.definitions(id: GoodPlugins.firstID)))
        try #require((try? ELFPreflight.check(write(good), fileSize: good.count)) != nil, "the good library is refused")
        let regions = [0..<64, 64..<min(good.count, 4096), try ELFBytes.dynamicSection(good)]
        var generator = Generator(state: 0x9E37_79B9_7F4A_7C15)
        var verdicts: [String: Int] = [:]
        for round in 0..<1200 {
            var bytes = good
            if round % 10 == 9 {
                bytes.removeLast(Int.random(in: 1..<bytes.count, using: &generator))
            } else {
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let region = regions[Int.random(in: 0..<regions.count, using: &generator)]
                    let offset = Int.random(in: region.lowerBound..<region.upperBound - 8, using: &generator) & ~7
                    let edges: [UInt64] = [0, 1, UInt64(good.count), UInt64(good.count - 1), 0xFFFF_FFFF, 1 << 63,
                                           UInt64.max - UInt64.random(in: 0..<4096, using: &generator)]
                    let value = switch Int.random(in: 0..<3, using: &generator) {
                    case 0: UInt64.random(in: 0...UInt64.max, using: &generator)
                    case 1: UInt64.random(in: 0...UInt64(good.count * 2), using: &generator)
                    default: edges[Int.random(in: 0..<edges.count, using: &generator)]  // where arithmetic overflows
                    }
                    for index in 0..<8 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
                }
            }
            let path = try write(bytes)
            do throws(LoadFailure) {
                try ELFPreflight.check(path, fileSize: bytes.count)
                verdicts["accepted", default: 0] += 1
            } catch {
                #expect(!error.description.contains("\n"), "round \(round): \(error.description)")
                verdicts[error.message.prefix { $0 != ":" }.description, default: 0] += 1
            }
        }
        // The corruptions reached past the header check: some verdicts come from the section and symbol tables.
        #expect(verdicts.keys.contains { $0.contains("malformed ELF file") || $0.contains("symbol") }, "\(verdicts)")
    }

    /// A loaded segment that claims to start near 2^64 in the file: the tables it holds are refused
    /// as past the end of the file, by the preflight and by the export listing alike (adding an
    /// address's distance into the segment to that offset would overflow).
    @Test func aSegmentOffsetNear2To64IsRefusedNotAnOverflow() throws {
        let scratch = try TemporaryDirectory("plugboard-elf-offset")
        defer { scratch.remove() }
        var bytes = Array(try FixtureCache.library(GoodPlugins.definitions(id: GoodPlugins.firstID)))
        let table = Int(bytes.littleEndian(UInt64.self, at: 32))
        let entrySize = Int(bytes.littleEndian(UInt16.self, at: 54))
        let count = Int(bytes.littleEndian(UInt16.self, at: 56))
        let load = try #require((0..<count).map { table + $0 * entrySize }.first { bytes.littleEndian(UInt32.self, at: $0) == 1 })
        for index in 0..<8 { bytes[load + 8 + index] = index == 0 ? 0xF0 : 0xFF }  // p_offset = 2^64 - 16
        let path = scratch.file("library.so")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do throws(LoadFailure) {
            try ELFPreflight.check(path, fileSize: bytes.count)
            Issue.record("the preflight accepted the file")
        } catch {
            #expect(error.message.contains("past the end of the file"), "\(error.message)")
        }
        do throws(LoadFailure) {
            _ = try WorkerHarness.exportedSymbols(of: path)
            Issue.record("the export listing read the file")
        } catch {
            #expect(error.message.contains("past the end of the file"), "\(error.message)")
        }
    }
}
