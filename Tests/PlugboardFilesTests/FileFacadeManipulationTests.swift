import Foundation
import SystemPackage
import Testing

@testable import PlugboardFiles

@Suite struct FileFacadeManipulationTests {
    /// No operation, successful or not, may leave a temporary file behind.
    private func expectNoTemporaryFiles(_ sandbox: Sandbox, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: sandbox.container.rootPath)
            .filter { $0.split(separator: "/").last?.hasPrefix(AtomicWrite.temporaryNamePrefix) ?? false }
        #expect(leftovers.isEmpty, sourceLocation: sourceLocation)
    }

    @Test func writesAndReadsTextAndBytes() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("héllo\n", to: "a.txt", in: .documents)
            #expect(try facade.readText("a.txt", in: .documents) == "héllo\n")
            let bytes: [UInt8] = (0...255).map(UInt8.init) + [0, 0, 255]
            try facade.writeBytes(bytes, to: "b.bin", in: .library)
            #expect(try facade.readBytes("b.bin", in: .library) == bytes)
            try facade.writeBytes([], to: "empty", in: .tmp)
            #expect(try facade.readBytes("empty", in: .tmp) == [])
            let large = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try facade.writeBytes(large, to: "large", in: .inbox)
            #expect(try facade.readBytes("large", in: .inbox) == large)
            #expect(FileManager.default.fileExists(atPath: sandbox.path("Documents/Inbox/large")))
            try expectNoTemporaryFiles(sandbox)
        }
    }

    @Test func writeRefusesToOverwriteUnlessAsked() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("old", to: "a.txt", in: .documents)
            let error = expectFailure(.destinationExists) { () throws(FileFacadeError) in
                try facade.writeText("new", to: "a.txt", in: .documents)
            }
            #expect(error?.systemError == .fileExists)
            #expect(error?.operation == .write)
            #expect(error?.directory == .documents)
            #expect(error?.name == "a.txt")
            #expect(error?.description == "write 'a.txt' in Documents: destination exists (File exists)")
            #expect(try facade.readText("a.txt", in: .documents) == "old")
            try facade.writeText("new", to: "a.txt", in: .documents, overwrite: true)
            #expect(try facade.readText("a.txt", in: .documents) == "new")
            try expectNoTemporaryFiles(sandbox)
        }
    }

    @Test func writeCreatesFoldersOnlyWhenAsked() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            expectFailure(.notFound) { () throws(FileFacadeError) in
                try facade.writeText("x", to: "notes/2026/today.txt", in: .documents)
            }
            #expect(!FileManager.default.fileExists(atPath: sandbox.path("Documents/notes")))
            try facade.writeText("x", to: "notes/2026/today.txt", in: .documents, createIntermediateDirectories: true)
            #expect(try facade.readText("notes/2026/today.txt", in: .documents) == "x")
            try facade.writeText("y", to: "notes/2026/tomorrow.txt", in: .documents, createIntermediateDirectories: true)
            #expect(try facade.listContents(of: .documents, folder: "notes/2026").map(\.name) == ["today.txt", "tomorrow.txt"])
        }
    }

    @Test func writeRefusesAFileAsFolderAndADirectoryAsTarget() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("x", to: "file", in: .library)
            expectFailure(.notADirectory) { () throws(FileFacadeError) in
                try facade.writeText("x", to: "file/child", in: .library, createIntermediateDirectories: true)
            }
            try facade.writeText("x", to: "folder/child", in: .library, createIntermediateDirectories: true)
            expectFailure(.isADirectory) { () throws(FileFacadeError) in
                try facade.writeText("x", to: "folder", in: .library, overwrite: true)
            }
            expectFailure(.destinationExists) { () throws(FileFacadeError) in
                try facade.writeText("x", to: "folder", in: .library)
            }
            try expectNoTemporaryFiles(sandbox)
        }
    }

    @Test func readFailures() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            expectFailure(.notFound) { () throws(FileFacadeError) in try facade.readBytes("missing", in: .documents) }
            try facade.writeText("x", to: "only-in-documents", in: .documents)
            expectFailure(.notFound) { () throws(FileFacadeError) in
                try facade.readBytes("only-in-documents", in: .library)
            }
            expectFailure(.isADirectory) { () throws(FileFacadeError) in try facade.readBytes("Inbox", in: .documents) }
            #expect(mkfifo(sandbox.path("tmp/fifo"), 0o600) == 0)
            expectFailure(.notARegularFile) { () throws(FileFacadeError) in try facade.readBytes("fifo", in: .tmp) }
            try facade.writeBytes([0xFF, 0xFE, 0x00], to: "binary", in: .tmp)
            expectFailure(.notUTF8Text) { () throws(FileFacadeError) in try facade.readText("binary", in: .tmp) }
        }
    }

    @Test func deleteRemovesFilesAndEmptyDirectoriesOnly() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("x", to: "a/b.txt", in: .documents, createIntermediateDirectories: true)
            expectFailure(.directoryNotEmpty) { () throws(FileFacadeError) in try facade.delete("a", in: .documents) }
            try facade.delete("a/b.txt", in: .documents)
            #expect(try !facade.exists("a/b.txt", in: .documents))
            try facade.delete("a", in: .documents)
            #expect(try !facade.exists("a", in: .documents))
            expectFailure(.notFound) { () throws(FileFacadeError) in try facade.delete("a", in: .documents) }
            expectFailure(.notFound) { () throws(FileFacadeError) in try facade.delete("a/b.txt", in: .documents) }
        }
    }

    @Test func renameWithinTheSameFolder() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("one", to: "notes/a.txt", in: .documents, createIntermediateDirectories: true)
            try facade.writeText("two", to: "notes/b.txt", in: .documents)
            try facade.rename("notes/a.txt", in: .documents, to: "c.txt")
            #expect(try facade.readText("notes/c.txt", in: .documents) == "one")
            #expect(try !facade.exists("notes/a.txt", in: .documents))

            let error = expectFailure(.destinationExists) { () throws(FileFacadeError) in
                try facade.rename("notes/c.txt", in: .documents, to: "b.txt")
            }
            #expect(error?.name == "b.txt")
            #expect(try facade.readText("notes/b.txt", in: .documents) == "two")
            #expect(try facade.readText("notes/c.txt", in: .documents) == "one")

            try facade.rename("notes/c.txt", in: .documents, to: "b.txt", overwrite: true)
            #expect(try facade.readText("notes/b.txt", in: .documents) == "one")
            #expect(try facade.listContents(of: .documents, folder: "notes").map(\.name) == ["b.txt"])

            let missing = expectFailure(.notFound) { () throws(FileFacadeError) in
                try facade.rename("notes/missing", in: .documents, to: "x")
            }
            #expect(missing?.name == "notes/missing")
            expectFailure(.invalidName(.containsSlash)) { () throws(FileFacadeError) in
                try facade.rename("notes/b.txt", in: .documents, to: "elsewhere/b.txt")
            }
            expectFailure(.escapesContainer) { () throws(FileFacadeError) in
                try facade.rename("notes/b.txt", in: .documents, to: "..")
            }
        }
    }

    @Test func moveBetweenDirectories() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("draft", to: "draft.txt", in: .tmp)
            try facade.move("draft.txt", from: .tmp, to: "final/draft.txt", in: .documents, createIntermediateDirectories: true)
            #expect(try facade.readText("final/draft.txt", in: .documents) == "draft")
            #expect(try !facade.exists("draft.txt", in: .tmp))

            try facade.writeText("other", to: "draft.txt", in: .tmp)
            let exists = expectFailure(.destinationExists) { () throws(FileFacadeError) in
                try facade.move("draft.txt", from: .tmp, to: "final/draft.txt", in: .documents)
            }
            #expect(exists?.directory == .documents)
            #expect(try facade.readText("draft.txt", in: .tmp) == "other")
            try facade.move("draft.txt", from: .tmp, to: "final/draft.txt", in: .documents, overwrite: true)
            #expect(try facade.readText("final/draft.txt", in: .documents) == "other")

            let missingSource = expectFailure(.notFound) { () throws(FileFacadeError) in
                try facade.move("draft.txt", from: .tmp, to: "x", in: .library)
            }
            #expect(missingSource?.directory == .tmp)
            try facade.writeText("x", to: "x", in: .tmp)
            let missingFolder = expectFailure(.notFound) { () throws(FileFacadeError) in
                try facade.move("x", from: .tmp, to: "no/such/folder/x", in: .library)
            }
            #expect(missingFolder?.directory == .library)
            #expect(missingFolder?.operation == .move)

            try facade.writeText("in folder", to: "folder/inner", in: .library, createIntermediateDirectories: true)
            try facade.move("folder", from: .library, to: "moved-folder", in: .inbox)
            #expect(try facade.readText("moved-folder/inner", in: .inbox) == "in folder")
        }
    }

    /// A move or a rename carries a folder's whole tree: one that would put an entry inside it past
    /// the depth or length limits is refused, and nothing moves; within them, it goes.
    @Test func aFolderIsNotMovedOrRenamedPastTheLimits() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            let deep = (1...126).map { "a\($0)" }.joined(separator: "/")  // with Documents, 127 folders
            try facade.writeText("deep", to: deep + "/f", in: .documents, createIntermediateDirectories: true)
            try facade.writeText("tree", to: "b1/b2/b3", in: .documents, createIntermediateDirectories: true)
            let tooDeep = expectFailure(.invalidName(.tooDeep(folders: 129))) { () throws(FileFacadeError) in
                try facade.move("b1", from: .documents, to: deep + "/b1", in: .documents)
            }
            #expect(tooDeep?.operation == .move)
            #expect(try facade.readText("b1/b2/b3", in: .documents) == "tree")
            try facade.move("b1/b2/b3", from: .documents, to: "b3", in: .documents)
            try facade.move("b1", from: .documents, to: deep + "/b1", in: .documents)  // b2 lies 128 folders deep
            #expect(try facade.exists(deep + "/b1/b2", in: .documents))

            // Documents/x/ and fifteen names of 255 bytes: 3,851 bytes; with x renamed to 255 bytes, 4,105.
            let long = (1...15).map { String(repeating: Character(String($0 % 10)), count: 255) }.joined(separator: "/")
            try facade.writeText("long", to: "x/" + long, in: .documents, createIntermediateDirectories: true)
            let tooLong = expectFailure(.invalidName(.tooLong(bytes: 4105))) { () throws(FileFacadeError) in
                try facade.rename("x", in: .documents, to: String(repeating: "y", count: 255))
            }
            #expect(tooLong?.operation == .rename)
            try facade.rename("x", in: .documents, to: "z")
            #expect(try facade.readText("z/" + long, in: .documents) == "long")
        }
    }

    @Test func copyKeepsSourceAndPermissions() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("original", to: "a.txt", in: .documents)
            #expect(chmod(sandbox.path("Documents/a.txt"), 0o640) == 0)
            try facade.copy("a.txt", from: .documents, to: "backup/a.txt", in: .library, createIntermediateDirectories: true)
            #expect(try facade.readText("backup/a.txt", in: .library) == "original")
            #expect(try facade.readText("a.txt", in: .documents) == "original")
            #expect(try facade.attributes(of: "backup/a.txt", in: .library).permissions == FilePermissions(rawValue: 0o640))

            try facade.writeText("changed", to: "a.txt", in: .documents, overwrite: true)
            expectFailure(.destinationExists) { () throws(FileFacadeError) in
                try facade.copy("a.txt", from: .documents, to: "backup/a.txt", in: .library)
            }
            #expect(try facade.readText("backup/a.txt", in: .library) == "original")
            try facade.copy("a.txt", from: .documents, to: "backup/a.txt", in: .library, overwrite: true)
            #expect(try facade.readText("backup/a.txt", in: .library) == "changed")

            expectFailure(.isADirectory) { () throws(FileFacadeError) in
                try facade.copy("backup", from: .library, to: "b", in: .library)
            }
            let missing = expectFailure(.notFound) { () throws(FileFacadeError) in
                try facade.copy("missing", from: .documents, to: "b", in: .library)
            }
            #expect(missing?.directory == .documents)
            try expectNoTemporaryFiles(sandbox)
        }
    }

    @Test func changeExtension() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("x", to: "notes/a.tar.gz", in: .documents, createIntermediateDirectories: true)
            #expect(try facade.changeExtension(of: "notes/a.tar.gz", in: .documents, to: "zip") == "notes/a.tar.zip")
            #expect(try facade.readText("notes/a.tar.zip", in: .documents) == "x")
            #expect(try facade.changeExtension(of: "notes/a.tar.zip", in: .documents, to: "") == "notes/a.tar")
            #expect(try facade.changeExtension(of: "notes/a.tar", in: .documents, to: "tar") == "notes/a.tar")
            #expect(try facade.listContents(of: .documents, folder: "notes").map(\.name) == ["a.tar"])

            try facade.writeText("p", to: ".profile", in: .library)
            #expect(try facade.changeExtension(of: ".profile", in: .library, to: "bak") == ".profile.bak")
            #expect(try facade.readText(".profile.bak", in: .library) == "p")

            try facade.writeText("y", to: "notes/a.txt", in: .documents)
            expectFailure(.destinationExists) { () throws(FileFacadeError) in
                try facade.changeExtension(of: "notes/a.txt", in: .documents, to: "tar")
            }
            #expect(try facade.changeExtension(of: "notes/a.txt", in: .documents, to: "tar", overwrite: true) == "notes/a.tar")
            #expect(try facade.readText("notes/a.tar", in: .documents) == "y")

            expectFailure(.notFound) { () throws(FileFacadeError) in
                try facade.changeExtension(of: "notes/missing.txt", in: .documents, to: "md")
            }
            expectFailure(.notFound) { () throws(FileFacadeError) in
                try facade.changeExtension(of: "notes/missing.md", in: .documents, to: "md")
            }
            expectFailure(.invalidName(.containsSlash)) { () throws(FileFacadeError) in
                try facade.changeExtension(of: "notes/a.tar", in: .documents, to: "x/y")
            }
            expectFailure(.invalidName(.containsDot)) { () throws(FileFacadeError) in
                try facade.changeExtension(of: "notes/a.tar", in: .documents, to: "..")
            }
            expectFailure(.invalidName(.componentTooLong(bytes: 257))) { () throws(FileFacadeError) in
                try facade.changeExtension(of: "notes/a.tar", in: .documents, to: String(repeating: "e", count: 255))
            }
        }
    }

    @Test func everyErrorNamesOperationThingAndCause() throws {
        try Sandbox.with { sandbox in
            let error = expectFailure(.notFound) { () throws(FileFacadeError) in
                try sandbox.facade.readText("notes/missing.txt", in: .inbox)
            }
            #expect(
                error?.description
                    == "read 'notes/missing.txt' in Documents/Inbox: not found (No such file or directory)")
            let invalid = expectFailure(.escapesContainer) { () throws(FileFacadeError) in
                try sandbox.facade.delete("../x", in: .tmp)
            }
            #expect(invalid?.systemError == nil)
            #expect(invalid?.description == "delete '../x' in tmp: name would escape the container")
        }
    }
}
