import Testing

@testable import PlugboardFiles

@Suite struct SandboxedNameTests {
    private let context = ErrorContext(operation: .write, directory: .documents, name: "test")

    @Test(arguments: [
        "a", "notes/2026/today.txt", ".hidden", "..a", "a..", "...", "a\\..\\b", "%2e%2e",
        "%2e%2e/%2f", "ü/日本語/🙂", "..\u{301}", "a/\u{301}", String(repeating: "x", count: 255),
    ])
    func acceptsOrdinaryNames(_ name: String) throws {
        let validated = try SandboxedName(validating: name, context)
        #expect(validated.components.joined(separator: "/") == name)
    }

    @Test(arguments: [
        ("", FileFacadeError.Reason.invalidName(.empty)),
        ("a\0b", .invalidName(.containsNUL)),
        ("\0", .invalidName(.containsNUL)),
        ("/etc/passwd", .escapesContainer),
        ("/", .escapesContainer),
        ("/\u{301}etc", .escapesContainer),
        ("..", .escapesContainer),
        ("../a", .escapesContainer),
        ("a/..", .escapesContainer),
        ("a/../b", .escapesContainer),
        ("../\u{301}", .escapesContainer),
        ("a//b", .invalidName(.emptySegment)),
        ("a/", .invalidName(.emptySegment)),
        (".", .invalidName(.currentDirectorySegment)),
        ("./a", .invalidName(.currentDirectorySegment)),
        ("a/./b", .invalidName(.currentDirectorySegment)),
        (String(repeating: "x", count: 256), .invalidName(.componentTooLong(bytes: 256))),
        ("a/" + String(repeating: "é", count: 128), .invalidName(.componentTooLong(bytes: 256))),
        ("a\u{1B}]0;title\u{7}", .invalidName(.containsControlCharacter("\u{1B}"))),
        ("notes/a\nb.txt", .invalidName(.containsControlCharacter("\n"))),
        ("\u{1}/\u{1F}", .invalidName(.containsControlCharacter("\u{1}"))),
        ("a\tb", .invalidName(.containsControlCharacter("\t"))),
        ("a/b\u{7F}", .invalidName(.containsControlCharacter("\u{7F}"))),
        ("x\r", .invalidName(.containsControlCharacter("\r"))),
    ])
    func refusesWithReason(_ name: String, _ reason: FileFacadeError.Reason) {
        let error = expectFailure(reason) { () throws(FileFacadeError) in
            try SandboxedName(validating: name, context)
        }
        #expect(error?.name == "test")
    }

    /// Depth counts the folders of the container path: the context's
    /// directory ("Documents") and the name's own folders.
    @Test func theDeepestNameIsAcceptedAndOneFolderMoreIsRefused() throws {
        let deepest = String(repeating: "d/", count: ContainerPathLimits.folderDepth - 1) + "leaf"
        #expect(try SandboxedName(validating: deepest, context).folders.count == 127)
        let error = expectFailure(.invalidName(.tooDeep(folders: 129))) { () throws(FileFacadeError) in
            try SandboxedName(validating: "d/" + deepest, context)
        }
        #expect(error?.description.hasSuffix("the container path is 129 folders deep; the limit is 128") == true)
        // In Documents/Inbox the same name is one folder deeper.
        let inbox = ErrorContext(operation: .write, directory: .inbox, name: "test")
        expectFailure(.invalidName(.tooDeep(folders: 129))) { () throws(FileFacadeError) in
            try SandboxedName(validating: deepest, inbox)
        }
        // A container path (no directory in the context) counts its own folders only.
        let path = ErrorContext(operation: .adaptPath, directory: nil, name: "test")
        #expect(try SandboxedName(validating: "Documents/" + deepest, path).folders.count == 128)
    }

    /// A name of `bytes` UTF-8 bytes, in components of 200 bytes or less.
    private func name(bytes: Int) -> String {
        let segment = String(repeating: "x", count: 199)
        let body = Array(repeating: segment, count: 20).joined(separator: "/")  // 3999 bytes
        return body + "/" + String(repeating: "y", count: bytes - body.utf8.count - 1)
    }

    /// Length counts the bytes of the container path: "Documents/" (10) and the name.
    @Test func theLongestNameIsAcceptedAndOneByteMoreIsRefused() throws {
        let longest = name(bytes: ContainerPathLimits.pathBytes - 10)
        #expect(try SandboxedName(validating: longest, context).components.joined(separator: "/") == longest)
        let error = expectFailure(.invalidName(.tooLong(bytes: 4096))) { () throws(FileFacadeError) in
            try SandboxedName(validating: name(bytes: ContainerPathLimits.pathBytes - 9), context)
        }
        #expect(error?.description.hasSuffix("the container path is 4096 bytes long; the limit is 4095") == true)
    }

    @Test func messagesNameTheCharacterAndTheComponentLength() {
        let control = expectFailure(.invalidName(.containsControlCharacter("\u{1B}"))) { () throws(FileFacadeError) in
            try SandboxedName(validating: "notes/\u{1B}[31mred", context)
        }
        #expect(control?.description == "write 'test' in Documents: invalid name: contains the control character U+001B")
        let long = expectFailure(.invalidName(.componentTooLong(bytes: 300))) { () throws(FileFacadeError) in
            try SandboxedName(validating: String(repeating: "x", count: 300), context)
        }
        #expect(long?.description.hasSuffix("a component is 300 bytes long; the limit is 255") == true)
    }

    /// A name longer than any container path is shown shortened, with its length.
    @Test func anOverlongNameIsShortenedInTheMessage() {
        let name = "tmp/" + String(repeating: "a/", count: 50_000) + "x"
        let error = expectFailure(.invalidName(.tooDeep(folders: 50_001))) { () throws(FileFacadeError) in
            try PathAdapter.location(forContainerPath: name)
        }
        #expect(error?.name == name)
        #expect(error?.description == "check path 'tmp/a/a/a/a/a/a/a/a/a/a/a/a/a/a/…/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/x' (100005 bytes): "
            + "invalid name: the container path is 50001 folders deep; the limit is 128")
    }

    @Test func replacingTheLeafValidatesTheComponentAndTheWholeName() throws {
        let name = try SandboxedName(validating: "notes/a.txt", context)
        #expect(try name.replacingLeaf(with: "b.md", context).components == ["notes", "b.md"])
        expectFailure(.invalidName(.containsSlash)) { () throws(FileFacadeError) in
            try name.replacingLeaf(with: "x/y", context)
        }
        expectFailure(.invalidName(.containsControlCharacter("\u{7}"))) { () throws(FileFacadeError) in
            try name.replacingLeaf(with: "bell\u{7}", context)
        }
        let long = try SandboxedName(validating: self.name(bytes: ContainerPathLimits.pathBytes - 10), context)
        let error = expectFailure(.invalidName(.tooLong(bytes: 4096))) { () throws(FileFacadeError) in
            try long.replacingLeaf(with: long.leaf + "z", context)
        }
        #expect(error?.name == long.components.dropLast().joined(separator: "/") + "/" + long.leaf + "z")
    }

    @Test func splitsFoldersFromLeaf() throws {
        let name = try SandboxedName(validating: "notes/2026/today.txt", context)
        #expect(Array(name.folders) == ["notes", "2026"])
        #expect(name.leaf == "today.txt")
    }

    @Test func singleComponentRefusesSlash() throws {
        expectFailure(.invalidName(.containsSlash)) { () throws(FileFacadeError) in
            try SandboxedName(validatingComponent: "a/b", context)
        }
        #expect(try SandboxedName(validatingComponent: "a.b", context).leaf == "a.b")
    }
}
