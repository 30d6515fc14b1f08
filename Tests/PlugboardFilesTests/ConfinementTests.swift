import Foundation
import Synchronization
import Testing

@testable import PlugboardFiles

/// No name, and no symbolic link planted or swapped in, lets the facade
/// touch anything outside the container.
@Suite struct ConfinementTests {
    /// Runs every operation on `name`, expecting each to fail with one of
    /// `reasons`, and the outside to stay as it was.
    private func expectEveryOperationRefused(
        _ sandbox: Sandbox, name: String, in directory: AppDirectory,
        reasons: Set<FileFacadeError.Reason>, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try sandbox.facade.writeText("partner", to: "partner", in: .tmp, overwrite: true)
        let before = try sandbox.snapshotOutside()
        let operations = everyOperation(sandbox.facade, on: name, in: directory, partner: "partner", partnerDirectory: .tmp)
        for operation in operations {
            do {
                try operation.run()
                Issue.record("\(operation.label) '\(name)' succeeded", sourceLocation: sourceLocation)
            } catch {
                #expect(reasons.contains(error.reason), "\(operation.label): \(error)", sourceLocation: sourceLocation)
            }
        }
        #expect(try sandbox.snapshotOutside() == before, sourceLocation: sourceLocation)
    }

    @Test func everyOperationIsExercised() throws {
        let facade = FileFacade(container: try Container(rootPath: "/srv/app"))
        #expect(everyOperation(facade, on: "a", in: .tmp, partner: "b", partnerDirectory: .tmp).count == 16)
    }

    @Test(arguments: [
        "..", "../outside/secret.txt", "../../outside/secret.txt", "../../../outside/secret.txt",
        "a/../../outside/secret.txt", "Inbox/../../../outside", "/etc/passwd", "//outside",
        "../\u{301}outside", "/\u{301}",
    ])
    func parentSegmentsAndAbsolutePathsAreRefused(_ name: String) throws {
        try Sandbox.with { sandbox in
            for directory in AppDirectory.allCases {
                try expectEveryOperationRefused(sandbox, name: name, in: directory, reasons: [.escapesContainer])
            }
            let absolute = sandbox.outside.path + "/secret.txt"
            try expectEveryOperationRefused(sandbox, name: absolute, in: .documents, reasons: [.escapesContainer])
        }
    }

    @Test(arguments: [
        ("", FileFacadeError.Reason.invalidName(.empty)),
        ("a\0b", .invalidName(.containsNUL)),
        ("..\0/x", .invalidName(.containsNUL)),
        ("a//b", .invalidName(.emptySegment)),
        ("./a", .invalidName(.currentDirectorySegment)),
    ])
    func malformedNamesAreRefusedBeforeTouchingTheFileSystem(_ name: String, _ reason: FileFacadeError.Reason) throws {
        try Sandbox.with { sandbox in
            try expectEveryOperationRefused(sandbox, name: name, in: .library, reasons: [reason])
        }
    }

    /// Links in folder positions are refused wherever they point, even
    /// inside the container: refusing all of them is the simple rule that
    /// makes the walk safe.
    @Test(arguments: [
        "escape/secret.txt", "escape/nested/deep.txt", "escapeRelative/secret.txt",
        "sub/escape/secret.txt", "escape/new-file", "alias/inside.txt",
    ])
    func symlinkedFoldersAreRefused(_ name: String) throws {
        try Sandbox.with { sandbox in
            try sandbox.facade.writeText("inside", to: "real/inside.txt", in: .documents, createIntermediateDirectories: true)
            try sandbox.plantSymlink("Documents/escape", to: sandbox.outside.path)
            try sandbox.plantSymlink("Documents/escapeRelative", to: "../../outside")
            try FileManager.default.createDirectory(atPath: sandbox.path("Documents/sub"), withIntermediateDirectories: false)
            try sandbox.plantSymlink("Documents/sub/escape", to: sandbox.outside.path)
            try sandbox.plantSymlink("Documents/alias", to: "real")
            // "rename to" takes a single component, so it refuses these names earlier.
            try expectEveryOperationRefused(
                sandbox, name: name, in: .documents,
                reasons: [.symbolicLink, .invalidName(.containsSlash)])
        }
    }

    @Test func aStandardDirectoryReplacedByALinkIsRefused() throws {
        try Sandbox.with { sandbox in
            try FileManager.default.removeItem(atPath: sandbox.path("Library"))
            try sandbox.plantSymlink("Library", to: sandbox.outside.path)
            for name in ["secret.txt", "new.txt", "nested/deep.txt"] {
                try expectEveryOperationRefused(
                    sandbox, name: name, in: .library,
                    reasons: [.symbolicLink, .invalidName(.containsSlash)])
            }
            expectFailure(.symbolicLink) { () throws(FileFacadeError) in try sandbox.facade.listContents(of: .library) }
        }
    }

    /// A link as the last component is an entry like any other: it can be
    /// described, renamed, deleted or replaced, but never read or written
    /// through.
    @Test func aFinalLinkIsActedOnButNeverFollowed() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            let secret = sandbox.outside.path + "/secret.txt"
            try sandbox.plantSymlink("Documents/link", to: secret)
            let before = try sandbox.snapshotOutside()

            expectFailure(.symbolicLink) { () throws(FileFacadeError) in try facade.readBytes("link", in: .documents) }
            expectFailure(.symbolicLink) { () throws(FileFacadeError) in
                try facade.copy("link", from: .documents, to: "copy", in: .documents)
            }
            expectFailure(.destinationExists) { () throws(FileFacadeError) in
                try facade.writeText("x", to: "link", in: .documents)
            }
            #expect(try facade.attributes(of: "link", in: .documents).kind == .symbolicLink)
            try facade.rename("link", in: .documents, to: "link2")
            try facade.move("link2", from: .documents, to: "link3", in: .library)
            try facade.delete("link3", in: .library)

            try sandbox.plantSymlink("Documents/link", to: secret)
            try facade.writeText("replaced", to: "link", in: .documents, overwrite: true)
            #expect(try facade.attributes(of: "link", in: .documents).kind == .file)
            #expect(try facade.readText("link", in: .documents) == "replaced")

            try sandbox.plantSymlink("Documents/link-dir", to: sandbox.outside.path)
            expectFailure(.symbolicLink) { () throws(FileFacadeError) in
                try facade.listContents(of: .documents, folder: "link-dir")
            }
            #expect(try sandbox.snapshotOutside() == before)
        }
    }

    /// The check-then-use race: a folder that was a real directory on one
    /// call is a link to the outside on the next.
    @Test func aFolderSwappedForALinkBetweenCallsIsRefused() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("v1", to: "sub/file.txt", in: .documents, createIntermediateDirectories: true)
            #expect(try facade.readText("sub/file.txt", in: .documents) == "v1")

            try FileManager.default.moveItem(atPath: sandbox.path("Documents/sub"), toPath: sandbox.path("Documents/parked"))
            try sandbox.plantSymlink("Documents/sub", to: sandbox.outside.path)
            try FileManager.default.copyItem(atPath: sandbox.outside.path + "/secret.txt", toPath: sandbox.outside.path + "/file.txt")
            let before = try sandbox.snapshotOutside()

            let reasons: Set<FileFacadeError.Reason> = [.symbolicLink, .invalidName(.containsSlash)]
            try expectEveryOperationRefused(sandbox, name: "sub/file.txt", in: .documents, reasons: reasons)
            try expectEveryOperationRefused(sandbox, name: "sub/secret.txt", in: .documents, reasons: reasons)
            #expect(try sandbox.snapshotOutside() == before)
        }
    }

    /// The same race, run for real: another thread keeps swapping a folder
    /// between a directory and a link to the outside while the facade
    /// writes, reads and deletes through it.
    @Test func aFolderSwappedConcurrentlyNeverLeaks() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("decoy", to: "sub/secret.txt", in: .documents, createIntermediateDirectories: true)
            try sandbox.plantSymlink("Documents/parkedLink", to: sandbox.outside.path)
            try FileManager.default.moveItem(atPath: sandbox.path("Documents/sub"), toPath: sandbox.path("Documents/parkedDirectory"))
            let before = try sandbox.snapshotOutside()

            let swapper = Swapper(
                folder: sandbox.path("Documents/sub"), directory: sandbox.path("Documents/parkedDirectory"),
                link: sandbox.path("Documents/parkedLink"))
            swapper.start()
            var successes = 0
            var refusals: [FileFacadeError.Reason: Int] = [:]
            let minimumEnd = Date().addingTimeInterval(1)
            let maximumEnd = Date().addingTimeInterval(10)
            var rounds = 0
            while Date() < maximumEnd
                && (Date() < minimumEnd || successes == 0 || refusals[.symbolicLink, default: 0] == 0)
            {
                rounds += 1
                let round = rounds
                record(&successes, &refusals) { () throws(FileFacadeError) in
                    try facade.writeText("leak \(round)", to: "sub/secret.txt", in: .documents, overwrite: true)
                }
                record(&successes, &refusals) { () throws(FileFacadeError) in
                    try facade.writeText("new", to: "sub/new-\(round)", in: .documents)
                }
                record(&successes, &refusals) { () throws(FileFacadeError) in _ = try facade.readBytes("sub/secret.txt", in: .documents) }
                record(&successes, &refusals) { () throws(FileFacadeError) in try facade.delete("sub/nested/deep.txt", in: .documents) }
                record(&successes, &refusals) { () throws(FileFacadeError) in
                    try facade.rename("sub/secret.txt", in: .documents, to: "secret.txt", overwrite: true)
                }
            }
            swapper.stop()

            #expect(try sandbox.snapshotOutside() == before)
            #expect(successes > 0, "\(refusals)")
            #expect(refusals[.symbolicLink, default: 0] > 0, "\(refusals)")
            #expect(swapper.swaps > 100)
        }
    }
}

/// Runs `operation` and counts its outcome.
private func record(
    _ successes: inout Int, _ refusals: inout [FileFacadeError.Reason: Int],
    _ operation: () throws(FileFacadeError) -> Void
) {
    do {
        try operation()
        successes += 1
    } catch {
        refusals[error.reason, default: 0] += 1
    }
}

/// Swaps a folder name between a real directory and a symbolic link, on its
/// own thread, until stopped.
private final class Swapper: Sendable {
    private let folder: String
    private let directory: String
    private let link: String
    private let stopping = Atomic<Bool>(false)
    private let swapCount = Atomic<Int>(0)
    private let finished = DispatchSemaphore(value: 0)

    init(folder: String, directory: String, link: String) {
        self.folder = folder
        self.directory = directory
        self.link = link
    }

    var swaps: Int { swapCount.load(ordering: .relaxed) }

    func start() {
        Thread.detachNewThread { [self] in
            while !stopping.load(ordering: .relaxed) {
                rename(directory, folder)
                rename(folder, directory)
                rename(link, folder)
                rename(folder, link)
                swapCount.add(1, ordering: .relaxed)
            }
            finished.signal()
        }
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
    }
}
