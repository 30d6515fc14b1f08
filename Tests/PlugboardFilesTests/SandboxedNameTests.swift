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
        (String(repeating: "x", count: 256), .invalidName(.componentTooLong)),
        ("a/" + String(repeating: "é", count: 128), .invalidName(.componentTooLong)),
    ])
    func refusesWithReason(_ name: String, _ reason: FileFacadeError.Reason) {
        let error = expectFailure(reason) { () throws(FileFacadeError) in
            try SandboxedName(validating: name, context)
        }
        #expect(error?.name == "test")
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
