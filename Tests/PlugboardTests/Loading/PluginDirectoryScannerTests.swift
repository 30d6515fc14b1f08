import Foundation
import Glibc
import Testing
@testable import Plugboard

/// A plugin folder's candidates are its entries named `*.so` (a name longer than the suffix, which
/// is compared byte for byte) that are not directories, in byte order of the name.
@Suite struct PluginDirectoryScannerTests {
    @Test func onlyNamesEndingInDotSoAreCandidatesInByteOrder() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        for name in ["b.so", "a.so", ".so", "c.so.1", "d.SO", "e.sox", "f.s", "so", "readme.txt", "É.so", "Z.so"] {
            try folder.write(name, "")
        }
        try FileManager.default.createDirectory(atPath: folder.file("g.so"), withIntermediateDirectories: false)
        #expect(try PluginDirectoryScanner.scan(folder.path).map(\.path) == ["Z.so", "a.so", "b.so", "É.so"].map(folder.file))
    }

    /// Names are ordered by their first bytes first; names alike in their first eight bytes by the
    /// rest, a name before a longer one it begins.
    @Test func namesAlikeInTheirFirstEightBytesAreInByteOrderToo() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let names = ["libplugin.so", "libplugin-b.so", "libplugin-a.so.so", "libplugi.so", "libplugin-a.so", "lib.so", "libplugin-a.sp.so",
                     "ba.so", "ab.so", "a.so.so", "a.so", "libplugi\u{C9}.so"]
        for name in names { try folder.write(name, "") }
        #expect(try PluginDirectoryScanner.scan(folder.path).map(\.path) == [
            "a.so", "a.so.so", "ab.so", "ba.so", "lib.so", "libplugi.so", "libplugin-a.so", "libplugin-a.so.so", "libplugin-a.sp.so",
            "libplugin-b.so", "libplugin.so", "libplugi\u{C9}.so",
        ].map(folder.file))
    }

    /// A file whose name is not UTF-8 is a candidate refused with that cause, in its place in the
    /// order: its name, repaired, would name no file ("does not exist" was the wrong cause).
    @Test func aNameThatIsNotUTF8IsRefusedWithThatCause() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("a.so", "")
        let raw = (Array(folder.path.utf8) + Array("/b".utf8) + [0xFF] + Array(".so".utf8) + [0]).map { CChar(bitPattern: $0) }
        let made = raw.withUnsafeBufferPointer { bytes in bytes.baseAddress.map { open($0, O_CREAT | O_WRONLY | O_CLOEXEC, 0o644) } ?? -1 }
        try #require(made >= 0)
        close(made)
        let candidates = LoadCandidate.all(in: PluginSearchPath(explicit: [folder.path]), trust: .allowInsecure)
        #expect(candidates.map { candidate -> String? in candidate.filePath } == [folder.file("a.so"), nil])
        guard case .refused(let report)? = candidates.last else { return }
        #expect(report.path == folder.file("b\u{FFFD}.so"))
        #expect(report.failure?.description.contains("the file's name is not UTF-8") == true, "\(String(describing: report.failure))")
    }
}
