import Foundation
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
        #expect(try PluginDirectoryScanner.scan(folder.path) == ["Z.so", "a.so", "b.so", "É.so"].map(folder.file))
    }
}
