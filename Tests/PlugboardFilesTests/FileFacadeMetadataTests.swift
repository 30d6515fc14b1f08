import Foundation
import SystemPackage
import Testing

@testable import PlugboardFiles

@Suite struct FileFacadeMetadataTests {
    @Test func listsSortedEntriesWithKinds() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("x", to: "b.txt", in: .documents)
            try facade.writeText("x", to: "a/inner.txt", in: .documents, createIntermediateDirectories: true)
            try facade.writeText("x", to: "Z.txt", in: .documents)
            try sandbox.plantSymlink("Documents/link", to: sandbox.outside.path)
            #expect(mkfifo(sandbox.path("Documents/fifo"), 0o600) == 0)
            let entries = try facade.listContents(of: .documents)
            #expect(
                entries == [
                    DirectoryEntry(name: "Inbox", kind: .directory),
                    DirectoryEntry(name: "Z.txt", kind: .file),
                    DirectoryEntry(name: "a", kind: .directory),
                    DirectoryEntry(name: "b.txt", kind: .file),
                    DirectoryEntry(name: "fifo", kind: .other),
                    DirectoryEntry(name: "link", kind: .symbolicLink),
                ])
            #expect(try facade.listContents(of: .documents, folder: "a") == [DirectoryEntry(name: "inner.txt", kind: .file)])
            #expect(try facade.listContents(of: .library).isEmpty)
        }
    }

    @Test func listsNamesThatAreNotUTF8WithReplacementCharacters() throws {
        try Sandbox.with { sandbox in
            try sandbox.createFile(in: "tmp", rawName: [0x66, 0xFF])
            #expect(try sandbox.facade.listContents(of: .tmp) == [DirectoryEntry(name: "f\u{FFFD}", kind: .file)])
        }
    }

    @Test func listingFailures() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("x", to: "file", in: .tmp)
            try sandbox.plantSymlink("tmp/link", to: sandbox.outside.path)
            expectFailure(.notFound) { () throws(FileFacadeError) in try facade.listContents(of: .tmp, folder: "missing") }
            expectFailure(.notADirectory) { () throws(FileFacadeError) in try facade.listContents(of: .tmp, folder: "file") }
            expectFailure(.symbolicLink) { () throws(FileFacadeError) in try facade.listContents(of: .tmp, folder: "link") }
            expectFailure(.escapesContainer) { () throws(FileFacadeError) in try facade.listContents(of: .tmp, folder: "..") }
            expectFailure(.invalidName(.empty)) { () throws(FileFacadeError) in try facade.listContents(of: .tmp, folder: "") }
        }
    }

    @Test func attributesOfAFile() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            let before = Date()
            try facade.writeBytes(Array(repeating: 7, count: 1234), to: "data.bin", in: .library)
            #expect(chmod(sandbox.path("Library/data.bin"), 0o640) == 0)
            let attributes = try facade.attributes(of: "data.bin", in: .library)
            #expect(attributes.size == 1234)
            #expect(attributes.kind == .file)
            #expect(attributes.permissions == [.ownerReadWrite, .groupRead])
            #expect(attributes.ownerID == geteuid())
            let expectedName = getpwuid(geteuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
            #expect(attributes.ownerName == expectedName)
            #expect(abs(attributes.modificationDate.timeIntervalSince(before)) < 60)
            // Birth time exists only where kernel and file system record it.
            if let created = attributes.creationDate {
                #expect(abs(created.timeIntervalSince(before)) < 60)
                #expect(created <= attributes.modificationDate.addingTimeInterval(1))
            }
        }
    }

    @Test func attributesDescribeDirectoriesAndLinksThemselves() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            let target = sandbox.outside.path + "/secret.txt"
            try sandbox.plantSymlink("Library/link", to: target)
            let link = try facade.attributes(of: "link", in: .library)
            #expect(link.kind == .symbolicLink)
            #expect(link.size == UInt64(target.utf8.count))
            #expect(try facade.attributes(of: "Inbox", in: .documents).kind == .directory)
            expectFailure(.notFound) { () throws(FileFacadeError) in try facade.attributes(of: "missing", in: .library) }
            expectFailure(.symbolicLink) { () throws(FileFacadeError) in
                try facade.attributes(of: "link/secret.txt", in: .library)
            }
        }
    }
}
