import Foundation
import Testing

@testable import PlugboardFiles

@Suite struct ContainerTests {
    @Test func defaultRootPrefersXDGDataHome() throws {
        let path = try Container.defaultRootPath(
            appName: "Notes", environment: ["XDG_DATA_HOME": "/data/home/", "HOME": "/home/u"])
        #expect(path == "/data/home/plugboard/Notes")
    }

    @Test(arguments: [
        ["HOME": "/home/u"], ["XDG_DATA_HOME": "", "HOME": "/home/u"],
        ["XDG_DATA_HOME": "relative/data", "HOME": "/home/u"],
    ])
    func defaultRootFallsBackToHome(_ environment: [String: String]) throws {
        let path = try Container.defaultRootPath(appName: "Notes", environment: environment)
        #expect(path == "/home/u/.local/share/plugboard/Notes")
    }

    @Test(arguments: [[:], ["HOME": ""], ["HOME": "relative"]])
    func defaultRootNeedsAnAbsoluteHome(_ environment: [String: String]) {
        let error = expectFailure(.noHomeDirectory) { () throws(FileFacadeError) in
            try Container.defaultRootPath(appName: "Notes", environment: environment)
        }
        #expect(error?.operation == .resolveDefaultRoot)
    }

    @Test(arguments: [
        ("", FileFacadeError.Reason.invalidName(.empty)), ("a/b", .invalidName(.containsSlash)),
        ("a\0b", .invalidName(.containsNUL)), (".", .invalidName(.currentDirectorySegment)),
        ("..", .escapesContainer), ("/abs", .escapesContainer),
    ])
    func defaultRootValidatesTheAppName(_ appName: String, _ reason: FileFacadeError.Reason) {
        let error = expectFailure(reason) { () throws(FileFacadeError) in
            try Container(appName: appName, environment: ["HOME": "/home/u"])
        }
        #expect(error?.name == appName)
    }

    @Test func rootPathIsNormalizedAndMustBeAbsolute() throws {
        #expect(try Container(rootPath: "/a//b/./c/").rootPath == "/a/b/c")
        expectFailure(.invalidName(.notAbsolute)) { () throws(FileFacadeError) in
            try Container(rootPath: "relative/root")
        }
        expectFailure(.invalidName(.containsNUL)) { () throws(FileFacadeError) in
            try Container(rootPath: "/a\0b")
        }
        let web = try #require(URL(string: "https://example.com/root"))
        expectFailure(.notAFileURL) { () throws(FileFacadeError) in
            try Container(root: web)
        }
    }

    @Test func directoryPathsAndURLs() throws {
        let container = try Container(rootPath: "/srv/app")
        #expect(container.path(of: .documents) == "/srv/app/Documents")
        #expect(container.path(of: .inbox) == "/srv/app/Documents/Inbox")
        #expect(container.path(of: .library) == "/srv/app/Library")
        #expect(container.path(of: .tmp) == "/srv/app/tmp")
        #expect(container.url(of: .inbox) == URL(fileURLWithPath: "/srv/app/Documents/Inbox", isDirectory: true))
        #expect(container.root == URL(fileURLWithPath: "/srv/app", isDirectory: true))
    }

    @Test func createDirectoriesMakesANewRootPrivateAndFourDirectoriesIdempotently() throws {
        try Sandbox.with { sandbox in
            let nested = try Container(rootPath: sandbox.base.path + "/deep/er/root")
            try nested.createDirectories()
            try nested.createDirectories()
            for directory in AppDirectory.allCases {
                var isDirectory: ObjCBool = false
                #expect(FileManager.default.fileExists(atPath: nested.path(of: directory), isDirectory: &isDirectory))
                #expect(isDirectory.boolValue)
            }
            let mode = try FileManager.default.attributesOfItem(atPath: nested.rootPath)[.posixPermissions] as? Int
            #expect(mode == 0o700)
            // An existing root keeps its permissions: pointing a container at a folder never changes it.
            chmod(nested.rootPath, 0o755)
            try nested.createDirectories()
            let keptMode = try FileManager.default.attributesOfItem(atPath: nested.rootPath)[.posixPermissions] as? Int
            #expect(keptMode == 0o755)
        }
    }

    @Test func createDirectoriesRefusesASymlinkedStandardDirectory() throws {
        try Sandbox.with { sandbox in
            try FileManager.default.removeItem(atPath: sandbox.path("Library"))
            try sandbox.plantSymlink("Library", to: sandbox.outside.path)
            let before = try sandbox.snapshotOutside()
            let error = expectFailure(.symbolicLink) { () throws(FileFacadeError) in
                try sandbox.container.createDirectories()
            }
            #expect(error?.name == "Library")
            #expect(try sandbox.snapshotOutside() == before)
        }
    }

    @Test func createDirectoriesRefusesAFileInPlaceOfADirectory() throws {
        try Sandbox.with { sandbox in
            try FileManager.default.removeItem(atPath: sandbox.path("tmp"))
            try Data("x".utf8).write(to: URL(fileURLWithPath: sandbox.path("tmp")))
            expectFailure(.notADirectory) { () throws(FileFacadeError) in
                try sandbox.container.createDirectories()
            }
        }
    }

    @Test func emptyTemporaryDirectoryRemovesContentsButNotLinkTargets() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            try facade.writeText("a", to: "a.txt", in: .tmp)
            try facade.writeText("b", to: "deep/er/b.txt", in: .tmp, createIntermediateDirectories: true)
            try sandbox.plantSymlink("tmp/linkToDirectory", to: sandbox.outside.path)
            try sandbox.plantSymlink("tmp/deep/linkToFile", to: sandbox.outside.path + "/secret.txt")
            try sandbox.createFile(in: "tmp/deep", rawName: [0x6E, 0x6F, 0xFE, 0xFF])
            try facade.writeText("kept", to: "kept.txt", in: .library)
            let before = try sandbox.snapshotOutside()

            try sandbox.container.emptyTemporaryDirectory()

            #expect(try facade.listContents(of: .tmp).isEmpty)
            #expect(try facade.exists("kept.txt", in: .library))
            #expect(try sandbox.snapshotOutside() == before)
        }
    }

    @Test func emptyTemporaryDirectoryRefusesASymlinkedTmp() throws {
        try Sandbox.with { sandbox in
            try FileManager.default.removeItem(atPath: sandbox.path("tmp"))
            try sandbox.plantSymlink("tmp", to: sandbox.outside.path)
            let before = try sandbox.snapshotOutside()
            expectFailure(.symbolicLink) { () throws(FileFacadeError) in
                try sandbox.container.emptyTemporaryDirectory()
            }
            #expect(try sandbox.snapshotOutside() == before)
        }
    }
}
