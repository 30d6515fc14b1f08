import CPlugboard
import Glibc
import PlugboardFiles
import Testing
@testable import Plugboard

/// The files service's `attributes` of a file whose time is past what 64-bit nanoseconds hold (a
/// plugin can date its own files so): the largest value, not a trap in the host.
@Suite struct FilesServiceTimeTests {
    /// A file dated in the year 3000 gives `Int64.max` nanoseconds.
    @Test func aTimePast64BitNanosecondsIsTheNearestEnd() throws {
        let scratch = try TemporaryDirectory("plugboard-files-time")
        defer { scratch.remove() }
        let container = try Container(rootPath: scratch.file("container"))
        try container.createDirectories()
        let service = FilesService(facade: FileFacade(container: container))
        let gate = ServiceGate(log: { _ in })
        let write = service.perform(FilesRequest(operation: .write, path: "Documents/dated.txt", data: Array("x".utf8)), gate: gate)
        try #require(write.status == PB_OK, "\(write.message)")
        let file = scratch.file("container") + "/Documents/dated.txt"
        let year3000 = timespec(tv_sec: 32_503_680_000, tv_nsec: 0)
        var times = [year3000, year3000]
        try #require(utimensat(AT_FDCWD, file, &times, 0) == 0)
        let outcome = service.perform(FilesRequest(operation: .attributes, path: "Documents/dated.txt"), gate: gate)
        try #require(outcome.status == PB_OK, "\(outcome.message)")
        #expect(FilesRecord(outcome.payload)?.attributes.modified_ns == Int64.max)
    }
}
