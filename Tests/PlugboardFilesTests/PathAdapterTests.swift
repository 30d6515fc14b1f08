import Foundation
import Testing

@testable import PlugboardFiles

@Suite struct PathAdapterTests {
    @Test(arguments: [
        ("Documents/notes/a.txt", AppDirectory.documents, "notes/a.txt"),
        ("Documents/Inbox/a", .inbox, "a"),
        ("Documents/Inbox/deep/er", .inbox, "deep/er"),
        ("Documents/Inboxes/a", .documents, "Inboxes/a"),
        ("Library/Preferences/x.plist", .library, "Preferences/x.plist"),
        ("tmp/x", .tmp, "x"),
        ("tmp/%2e%2e/a\\b", .tmp, "%2e%2e/a\\b"),
        ("Documents/ü 日本/🙂.txt", .documents, "ü 日本/🙂.txt"),
    ])
    func mapsContainerPathsToLocationsAndBack(_ path: String, _ directory: AppDirectory, _ name: String) throws {
        let location = try PathAdapter.location(forContainerPath: path)
        #expect(location == FileLocation(directory: directory, name: name))
        #expect(try PathAdapter.containerPath(for: location) == path)
    }

    @Test func inboxIsCanonicalWhenReachedThroughDocuments() throws {
        let path = try PathAdapter.containerPath(for: FileLocation(directory: .documents, name: "Inbox/a"))
        #expect(path == "Documents/Inbox/a")
        #expect(try PathAdapter.location(forContainerPath: path) == FileLocation(directory: .inbox, name: "a"))
    }

    @Test(arguments: [
        ("", FileFacadeError.Reason.invalidName(.empty)),
        ("Documents", .invalidName(.empty)),
        ("Documents/", .invalidName(.emptySegment)),
        ("Documents/Inbox", .invalidName(.empty)),
        ("Documents/Inbox/", .invalidName(.emptySegment)),
        ("/Documents/a", .escapesContainer),
        ("Documents/../Library/a", .escapesContainer),
        ("tmp/..", .escapesContainer),
        ("Documents//a", .invalidName(.emptySegment)),
        ("Documents/./a", .invalidName(.currentDirectorySegment)),
        ("Documents/a\0b", .invalidName(.containsNUL)),
        ("Desktop/a", .outsideAppDirectories),
        ("documents/a", .outsideAppDirectories),
        ("./Documents/a", .invalidName(.currentDirectorySegment)),
        ("../Documents/a", .escapesContainer),
        ("tmpfile", .outsideAppDirectories),
        ("Library\\a", .outsideAppDirectories),
        ("Inbox/a", .outsideAppDirectories),
    ])
    func refusesPathsOutsideTheStandardDirectories(_ path: String, _ reason: FileFacadeError.Reason) {
        let error = expectFailure(reason) { () throws(FileFacadeError) in
            try PathAdapter.location(forContainerPath: path)
        }
        #expect(error?.operation == .adaptPath)
        #expect(error?.name == path)
    }

    @Test func refusesLocationsWithInvalidNames() {
        expectFailure(.escapesContainer) { () throws(FileFacadeError) in
            try PathAdapter.containerPath(for: FileLocation(directory: .documents, name: "../Library/x"))
        }
    }

    @Test(arguments: ["a.txt", "notes/a b#c?d%20e.txt", "%2e%2e", "ü/🙂", "back\\slash", ":colon", "Inbox/x"])
    func mapsURLsInsideTheContainer(_ name: String) throws {
        let adapter = PathAdapter(container: try Container(rootPath: "/srv/app"))
        let location = FileLocation(directory: .documents, name: name)
        let url = try adapter.url(for: location)
        #expect(url.isFileURL)
        #expect(url.path(percentEncoded: false) == "/srv/app/Documents/" + name)
        let back = try adapter.location(for: url)
        #expect(try PathAdapter.containerPath(for: back) == "Documents/" + name)
    }

    @Test func refusesURLsOutsideTheContainer() throws {
        let adapter = PathAdapter(container: try Container(rootPath: "/srv/app"))
        let cases: [(String, FileFacadeError.Reason)] = [
            ("file:///etc/passwd", .escapesContainer),
            ("file:///srv/app2/Documents/a", .escapesContainer),
            ("file:///srv/app", .escapesContainer),
            ("file:///srv/app/Documents/../../etc/passwd", .escapesContainer),
            ("file:///srv/app/Documents/%2e%2e/Library/a", .escapesContainer),
            ("file:///srv/app/Desktop/a", .outsideAppDirectories),
            ("https://example.com/srv/app/Documents/a", .notAFileURL),
        ]
        for (string, reason) in cases {
            let url = try #require(URL(string: string))
            let error = expectFailure(reason) { () throws(FileFacadeError) in try adapter.location(for: url) }
            #expect(error?.operation == .adaptPath, "\(string)")
        }
    }

    /// String-path code and URL code share files through the facade,
    /// neither knowing about the other.
    @Test func stringAndURLCallersMeetInTheFacade() throws {
        try Sandbox.with { sandbox in
            let adapter = PathAdapter(container: sandbox.container)
            let written = try PathAdapter.location(forContainerPath: "Documents/Inbox/shared.txt")
            try sandbox.facade.writeText("from C", to: written.name, in: written.directory)

            let url = sandbox.container.root.appendingPathComponent("Documents/Inbox/shared.txt")
            let read = try adapter.location(for: url)
            #expect(try sandbox.facade.readText(read.name, in: read.directory) == "from C")
            #expect(try String(contentsOf: adapter.url(for: read), encoding: .utf8) == "from C")
        }
    }
}
