import Foundation
import Testing

@testable import PlugboardFiles

@Suite struct FileFacadeStatusTests {
    @Test func existsAnswersFalseOnlyForAbsence() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("x", to: "a/b.txt", in: .documents, createIntermediateDirectories: true)
            #expect(try facade.exists("a/b.txt", in: .documents))
            #expect(try facade.exists("a", in: .documents))
            #expect(try !facade.exists("a/missing", in: .documents))
            #expect(try !facade.exists("missing/b.txt", in: .documents))
            #expect(try !facade.exists("a/b.txt", in: .library))
            try sandbox.plantSymlink("Documents/link", to: sandbox.outside.path)
            #expect(try facade.exists("link", in: .documents))
            expectFailure(.symbolicLink) { () throws(FileFacadeError) in
                try facade.exists("link/secret.txt", in: .documents)
            }
            expectFailure(.notADirectory) { () throws(FileFacadeError) in
                try facade.exists("a/b.txt/c", in: .documents)
            }
            expectFailure(.escapesContainer) { () throws(FileFacadeError) in try facade.exists("..", in: .documents) }
        }
    }

    @Test func readableAndWritableFollowPermissions() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("x", to: "open.txt", in: .library)
            #expect(try facade.isReadable("open.txt", in: .library))
            #expect(try facade.isWritable("open.txt", in: .library))
            #expect(try facade.isReadable("Inbox", in: .documents))

            try facade.writeText("x", to: "locked.txt", in: .library)
            #expect(chmod(sandbox.path("Library/locked.txt"), 0o000) == 0)
            // root may read and write anything; everyone else is denied.
            let privileged = geteuid() == 0
            #expect(try facade.isReadable("locked.txt", in: .library) == privileged)
            #expect(try facade.isWritable("locked.txt", in: .library) == privileged)
        }
    }

    @Test func readableAndWritableRefuseMissingFilesAndLinks() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            expectFailure(.notFound) { () throws(FileFacadeError) in try facade.isReadable("missing", in: .tmp) }
            expectFailure(.notFound) { () throws(FileFacadeError) in try facade.isWritable("missing", in: .tmp) }
            try sandbox.plantSymlink("tmp/link", to: sandbox.outside.path + "/secret.txt")
            let error = expectFailure(.symbolicLink) { () throws(FileFacadeError) in
                try facade.isReadable("link", in: .tmp)
            }
            #expect(error?.operation == .checkReadability)
            expectFailure(.symbolicLink) { () throws(FileFacadeError) in try facade.isWritable("link", in: .tmp) }
        }
    }
}
