import CPlugboard
import Glibc
import PlugboardFiles
import Testing
@testable import Plugboard

/// The files service at the edges a plugin can reach: a file dated past what 64-bit nanoseconds
/// hold, and a file larger than its caller can take.
@Suite struct FilesServiceEdgeTests {
    /// `body` with a files service over a new container in a temporary folder, the folder's
    /// path to the container, and a gate that denies nothing.
    private func withService(_ body: (FilesService, String, ServiceGate) throws -> Void) throws {
        let scratch = try TemporaryDirectory("plugboard-files-edges")
        defer { scratch.remove() }
        let container = try Container(rootPath: scratch.file("container"))
        try container.createDirectories()
        try body(FilesService(facade: FileFacade(container: container)), scratch.file("container"), ServiceGate(log: { _ in }))
    }

    /// The `attributes` of a file dated in the year 3000 give `Int64.max` nanoseconds, not a trap in the host.
    @Test func aTimePast64BitNanosecondsIsTheNearestEnd() throws {
        try withService { service, root, gate in
            let write = service.perform(FilesRequest(operation: .write, path: "Documents/dated.txt", data: Array("x".utf8)), gate: gate)
            try #require(write.status == PB_OK, "\(write.message)")
            let file = root + "/Documents/dated.txt"
            let year3000 = timespec(tv_sec: 32_503_680_000, tv_nsec: 0)
            var times = [year3000, year3000]
            try #require(utimensat(AT_FDCWD, file, &times, 0) == 0)
            let outcome = service.perform(FilesRequest(operation: .attributes, path: "Documents/dated.txt"), gate: gate)
            try #require(outcome.status == PB_OK, "\(outcome.message)")
            #expect(FilesRecord(outcome.payload)?.attributes.modified_ns == Int64.max)
        }
    }

    /// A `read` of a file larger than the request's limit (a worker's: what one reply frame
    /// carries) is refused with a sentence naming the limit; one within it is read whole.
    @Test func aReadPastTheLimitIsRefusedAndNamesIt() throws {
        try withService { service, _, gate in
            let bytes = [UInt8](repeating: 1, count: 200_000)
            try #require(service.perform(FilesRequest(operation: .write, path: "Documents/large.bin", data: bytes), gate: gate).status == PB_OK)
            let refused = service.perform(FilesRequest(operation: .read, path: "Documents/large.bin", readLimit: 100_000), gate: gate)
            #expect(refused.status == PB_ERR_INVALID_ARGUMENT)
            #expect(refused.message.contains("larger than the 100000 bytes a read takes"), "\(refused.message)")
            let read = service.perform(FilesRequest(operation: .read, path: "Documents/large.bin", readLimit: 200_000), gate: gate)
            #expect(read.status == PB_OK && read.payload == bytes)
        }
    }
}
