import Foundation
import Glibc
import Testing
@testable import Plugboard

/// ``ELFFileReader`` serves reads from cached blocks of the file: a read within a block, across
/// blocks, longer than a block or ending at the file's end gives the file's bytes; a range past the
/// end, and a file that shrank after its size was taken, are errors that name the part read.
@Suite struct ELFFileReaderTests {
    /// A file of `count` bytes, byte `i` being `i % 251`, open for reading; `body` gets its reader.
    private func withFile(count: Int, _ body: (ELFFileReader, String) throws -> Void) throws {
        let scratch = try TemporaryDirectory("plugboard-elf-reader")
        defer { scratch.remove() }
        let path = scratch.file("bytes")
        try Data((0..<count).map { UInt8($0 % 251) }).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try body(ELFFileReader(descriptor: descriptor, size: UInt64(count)), path)
    }

    private func expected(_ offset: Int, _ count: Int) -> [UInt8] {
        (offset..<offset + count).map { UInt8($0 % 251) }
    }

    /// Reads within a block, across a boundary, longer than a block and at the end, more ranges
    /// than there are cached blocks, then the first again, give the file's bytes.
    @Test func readsGiveTheFilesBytesWhereverTheyFall() throws {
        try withFile(count: 10_000) { file, _ in
            let ranges = [(0, 64), (1020, 8), (1000, 100), (2040, 3000), (9_990, 10), (4096, 1), (7000, 24),
                          (8191, 2), (5000, 16), (0, 64)]
            for (offset, count) in ranges {
                let read = try file.bytes(at: UInt64(offset), count: UInt64(count), "a part")
                #expect(read == expected(offset, count), "\(offset)+\(count)")
            }
            let word = try file.load(UInt32.self, at: 1022, "a word")
            #expect(word == UInt32(littleEndian: expected(1022, 4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }))
        }
    }

    /// A range that ends past the file, starts at its end, or wraps past 2^64 is refused, named.
    @Test func aRangePastTheEndIsAnErrorThatNamesThePart() throws {
        try withFile(count: 3000) { file, _ in
            for (offset, count) in [(2990, 11), (3000, 1), (UInt64.max - 3, 8)] as [(UInt64, UInt64)] {
                do throws(LoadFailure) {
                    _ = try file.bytes(at: offset, count: count, "the symbol table")
                    Issue.record("\(offset)+\(count) read")
                } catch {
                    #expect(error.message.contains("the symbol table reaches byte"), "\(error.message)")
                }
            }
        }
    }

    /// A file cut short after its size was taken gives an error, not bytes it no longer has.
    @Test func aFileThatShrankIsAnErrorNotAReadOfOldBytes() throws {
        try withFile(count: 5000) { file, path in
            #expect(truncate(path, 1500) == 0)
            do throws(LoadFailure) {
                _ = try file.bytes(at: 2000, count: 16, "the dynamic section")
                Issue.record("read past the new end")
            } catch {
                #expect(error.message.contains("the file shrank while read"), "\(error.message)")
            }
        }
    }
}
