import CPlugboard
import Foundation
import Glibc
import PlugboardFiles
import Testing
@testable import Plugboard

/// The files service at the edges a plugin can reach: a file dated past what 64-bit nanoseconds
/// hold, a file larger than its caller can take, and the host's own folder.
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

    /// A standard directory named on its own is an existing folder to `exists` and `attributes`, as
    /// it is to `list` (it was an invalid, empty name).
    @Test func aStandardDirectoryExistsAndHasAttributes() throws {
        try withService { service, _, gate in
            for path in ["Documents", "Documents/Inbox", "Library", "tmp"] {
                let exists = service.perform(FilesRequest(operation: .exists, path: path), gate: gate)
                #expect(exists.status == PB_OK && exists.payload == [1], "\(path): \(exists.message)")
                let attributes = service.perform(FilesRequest(operation: .attributes, path: path), gate: gate)
                #expect(attributes.status == PB_OK, "\(path): \(attributes.message)")
                #expect(FilesRecord(attributes.payload)?.attributes.kind == PB_FILE_KIND_DIRECTORY, "\(path)")
            }
            let inside = service.perform(FilesRequest(operation: .exists, path: "Documents/none.txt"), gate: gate)
            #expect(inside.status == PB_OK && inside.payload == [0])
        }
    }

    /// The folder where the host keeps the plugins' saved state is out of every call's reach, as a
    /// path, a destination or a new name; a listing of `Library` leaves it out; its file stays as
    /// it was. A name that only begins the same is an ordinary file.
    @Test func theHostsStateFolderIsOutOfReach() throws {
        try withService { service, root, gate in
            let folder = root + "/Library/Plugboard State"
            try #require(mkdir(folder, 0o755) == 0)
            let state = folder + "/com.example.victim.state"
            try #require(FileManager.default.createFile(atPath: state, contents: Data("secret".utf8)))
            for (path, ok) in [("Library/a.txt", true), ("Library/Plugboard State.old", true), ("Library/Plugboard Statement", true)] {
                let made = service.perform(FilesRequest(operation: .write, path: path, data: Array("x".utf8)), gate: gate)
                #expect((made.status == PB_OK) == ok, "\(path): \(made.message)")
            }
            let attempts: [FilesRequest] = [
                FilesRequest(operation: .read, path: "Library/Plugboard State/com.example.victim.state"),
                FilesRequest(operation: .write, path: "Library/Plugboard State/com.example.victim.state", data: Array("forged".utf8),
                             flags: UInt32(PB_FILES_OVERWRITE)),
                FilesRequest(operation: .remove, path: "Library/Plugboard State/com.example.victim.state"),
                FilesRequest(operation: .remove, path: "Library/Plugboard State"),
                FilesRequest(operation: .list, path: "Library/Plugboard State"),
                FilesRequest(operation: .exists, path: "Library/Plugboard State/com.example.victim.state"),
                FilesRequest(operation: .attributes, path: "Library/Plugboard State"),
                FilesRequest(operation: .move, path: "Library/Plugboard State", secondPath: "Library/taken"),
                FilesRequest(operation: .copy, path: "Library/a.txt", secondPath: "Library/Plugboard State/com.example.victim.state",
                             flags: UInt32(PB_FILES_OVERWRITE)),
                FilesRequest(operation: .move, path: "Library/a.txt", secondPath: "Library/Plugboard State/new.state"),
                FilesRequest(operation: .rename, path: "Library/Plugboard Statement", secondPath: "Plugboard State",
                             flags: UInt32(PB_FILES_OVERWRITE)),
                FilesRequest(operation: .changeExtension, path: "Library/Plugboard State.old", secondPath: "",
                             flags: UInt32(PB_FILES_OVERWRITE)),
                // A `/` or a `.` followed by a combining mark is one Swift Character, but the bytes the
                // file system splits on; and a folder that ignores case takes the name in any case.
                FilesRequest(operation: .rename, path: "Library/\u{301}x", secondPath: "Plugboard State", flags: UInt32(PB_FILES_OVERWRITE)),
                FilesRequest(operation: .changeExtension, path: "Library/Plugboard State.\u{301}", secondPath: "",
                             flags: UInt32(PB_FILES_OVERWRITE)),
                FilesRequest(operation: .write, path: "Library/Plugboard State/\u{301}x", data: Array("forged".utf8)),
                FilesRequest(operation: .read, path: "Library/plugboard STATE/com.example.victim.state"),
                // Names such a folder takes for it: case folding gives "s" for ſ and "st" for ﬆ, and older
                // kernels skip a zero-width space.
                FilesRequest(operation: .read, path: "Library/Plugboard \u{17F}tate/com.example.victim.state"),
                FilesRequest(operation: .write, path: "Library/Plugboard \u{FB06}ate/com.example.victim.state", data: Array("forged".utf8),
                             flags: UInt32(PB_FILES_OVERWRITE | PB_FILES_CREATE_FOLDERS)),
                FilesRequest(operation: .remove, path: "Library/Plugboard\u{200B} State"),
                FilesRequest(operation: .move, path: "Library/a.txt", secondPath: "LIBRARY/Plugboard State/new.state"),
            ]
            for attempt in attempts {
                let refused = service.perform(attempt, gate: gate)
                #expect(refused.status == PB_ERR_PERMISSION, "\(attempt.operation) \(attempt.path) \(attempt.secondPath): \(refused.message)")
                #expect(refused.message.contains("the host keeps the plugins' saved state in 'Library/Plugboard State'"), "\(refused.message)")
            }
            #expect(FileManager.default.contents(atPath: state) == Data("secret".utf8))
            let listing = service.perform(FilesRequest(operation: .list, path: "Library"), gate: gate)
            #expect(listing.status == PB_OK)
            let names = String(decoding: listing.payload, as: UTF8.self)
            #expect(names.contains("\"a.txt\"") && !names.contains("\"Plugboard State\""), "\(names)")
            let renamed = service.perform(FilesRequest(operation: .changeExtension, path: "Library/Plugboard State.old", secondPath: "new"), gate: gate)
            #expect(renamed.status == PB_OK, "\(renamed.message)")
        }
    }

    /// A `read` of a file larger than the request's limit (a worker's: what one reply frame
    /// carries) is refused with a sentence naming the limit; one within it is read whole.
    @Test func aReadPastTheLimitIsRefusedAndNamesIt() throws {
        try withService { service, _, gate in
            let bytes = [UInt8](repeating: 1, count: 200_000)
            try #require(service.perform(FilesRequest(operation: .write, path: "Documents/large.bin", data: bytes), gate: gate).status == PB_OK)
            let refused = service.perform(FilesRequest(operation: .read, path: "Documents/large.bin", resultLimit: 100_000), gate: gate)
            #expect(refused.status == PB_ERR_INVALID_ARGUMENT)
            #expect(refused.message.contains("larger than the 100000 bytes the caller takes"), "\(refused.message)")
            let read = service.perform(FilesRequest(operation: .read, path: "Documents/large.bin", resultLimit: 200_000), gate: gate)
            #expect(read.status == PB_OK && read.payload == bytes)
        }
    }

    /// A `list` whose listing is larger than the request's limit is refused the same way: a worker's
    /// reply frame could not carry it, and sending it would end the worker.
    @Test func aListingPastTheLimitIsRefusedAndNamesIt() throws {
        try withService { service, _, gate in
            for index in 0..<50 {
                let name = "Documents/folder/" + String(repeating: "n", count: 200) + "\(index)"
                let written = service.perform(FilesRequest(operation: .write, path: name, data: [1], flags: PB_FILES_CREATE_FOLDERS), gate: gate)
                try #require(written.status == PB_OK, "\(written.message)")
            }
            let refused = service.perform(FilesRequest(operation: .list, path: "Documents/folder", resultLimit: 5_000), gate: gate)
            #expect(refused.status == PB_ERR_INVALID_ARGUMENT)
            #expect(refused.message == "list contents 'Documents/folder': larger than the 5000 bytes the caller takes", "\(refused.message)")
            let listed = service.perform(FilesRequest(operation: .list, path: "Documents/folder", resultLimit: 20_000), gate: gate)
            #expect(listed.status == PB_OK && listed.payload.count > 5_000)
        }
    }
}
