import Foundation
import Testing

@testable import PlugboardFiles

@Suite struct FileFacadeNamingTests {
    @Test func fullPathsAndURLsOfValidNames() throws {
        let facade = FileFacade(container: try Container(rootPath: "/srv/app"))
        #expect(try facade.path(for: "notes/a b.txt", in: .inbox) == "/srv/app/Documents/Inbox/notes/a b.txt")
        #expect(try facade.path(for: "x", in: .tmp) == "/srv/app/tmp/x")
        #expect(try facade.url(for: "notes/a b.txt", in: .library) == URL(fileURLWithPath: "/srv/app/Library/notes/a b.txt"))
    }

    @Test func refusesNamesThatWouldLeave() throws {
        let facade = FileFacade(container: try Container(rootPath: "/srv/app"))
        let error = expectFailure(.escapesContainer) { () throws(FileFacadeError) in
            try facade.path(for: "../../etc/passwd", in: .documents)
        }
        #expect(error?.operation == .resolveName)
        expectFailure(.escapesContainer) { () throws(FileFacadeError) in try facade.url(for: "/etc", in: .documents) }
        expectFailure(.invalidName(.containsNUL)) { () throws(FileFacadeError) in try facade.url(for: "a\0", in: .tmp) }
    }
}
