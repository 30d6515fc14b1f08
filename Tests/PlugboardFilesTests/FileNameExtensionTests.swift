import Testing

@testable import PlugboardFiles

@Suite struct FileNameExtensionTests {
    private let context = ErrorContext(operation: .changeExtension, directory: .documents, name: "x")

    @Test(arguments: [
        ("a.txt", "a"), ("archive.tar.gz", "archive.tar"), (".profile", ".profile"),
        (".profile.bak", ".profile"), ("noextension", "noextension"), ("a.", "a"), ("..a", "."),
    ])
    func baseNameCutsAtTheLastDotOnly(_ leaf: String, _ base: String) {
        #expect(FileNameExtension.baseName(of: leaf) == base)
    }

    @Test(arguments: [
        ("a.txt", "md", "a.md"), ("archive.tar.gz", "zip", "archive.tar.zip"),
        (".profile", "bak", ".profile.bak"), ("a.txt", "", "a"), ("plain", "txt", "plain.txt"),
        (".profile", "", ".profile"),
    ])
    func replacesTheExtension(_ leaf: String, _ newExtension: String, _ expected: String) throws {
        #expect(try FileNameExtension.replacing(in: leaf, with: newExtension, context) == expected)
    }

    @Test(arguments: [
        ("t/xt", FileFacadeError.InvalidNameReason.containsSlash), (".", .containsDot),
        ("..", .containsDot), ("tar.gz", .containsDot), ("t\0", .containsNUL),
    ])
    func refusesBadExtensions(_ newExtension: String, _ why: FileFacadeError.InvalidNameReason) {
        expectFailure(.invalidName(why)) { () throws(FileFacadeError) in
            try FileNameExtension.replacing(in: "a.txt", with: newExtension, context)
        }
    }
}
