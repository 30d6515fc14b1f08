import Foundation
import Glibc
import Plugboard
import PlugboardFiles
@testable import plugboard
import Testing

/// A container whose `tmp` already holds a tree far deeper than the facade
/// allows (made by an older host, or by hand) is emptied without a crash:
/// the removal is a loop over descriptors, not a recursion, and needs no
/// path (the tree is far deeper than PATH_MAX).
@Suite struct DeepTemporaryTreeTests {
    /// Deep enough that a recursion of one stack frame per folder overflows
    /// the stack, and a path to the bottom is 25 times PATH_MAX.
    static let depth = 50_000

    /// A container with its four directories, a tree `depth` folders deep in
    /// `tmp`, and a file outside that a link at the bottom points to.
    struct DeepContainer {
        let work: TemporaryDirectory
        var root: String { work.file("container") }
        var outsideFile: String { work.file("outside.txt") }

        init(_ label: String) throws {
            work = try TemporaryDirectory("plugboard-deep-\(label)")
            for directory in ["", "/Documents", "/Documents/Inbox", "/Library", "/tmp"] {
                try FileManager.default.createDirectory(atPath: work.file("container") + directory,
                                                        withIntermediateDirectories: false)
            }
            try work.write("outside.txt", "kept")
            try Self.makeTree(under: work.file("container/tmp"), depth: DeepTemporaryTreeTests.depth,
                              linkingTo: work.file("outside.txt"))
        }

        /// Removes everything, the deep tree through descriptors (path-based
        /// removal cannot reach its bottom), then the folder.
        func remove() {
            try? Container(rootPath: root).emptyTemporaryDirectory()
            work.remove()
        }

        /// The names in `tmp`.
        func temporaryEntries() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: root + "/tmp")
        }

        /// Folders "d" inside each other, each made and entered through a
        /// descriptor; a file every 10,000 levels, and at the bottom a file
        /// and a symbolic link to `target`.
        private static func makeTree(under path: String, depth: Int, linkingTo target: String) throws {
            var current = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { close(current) }
            for level in 0..<depth {
                if level % 10_000 == 0 { try makeFile("level-\(level).txt", in: current) }
                guard mkdirat(current, "d", 0o700) == 0 else { throw failure("mkdirat at level \(level)") }
                let next = openat(current, "d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard next >= 0 else { throw failure("openat at level \(level)") }
                close(current)
                current = next
            }
            try makeFile("bottom.txt", in: current)
            guard symlinkat(target, current, "link") == 0 else { throw failure("symlinkat at the bottom") }
        }

        private static func makeFile(_ name: String, in directory: CInt) throws {
            let file = openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard file >= 0 else { throw failure("creating \(name)") }
            close(file)
        }

        private static func failure(_ what: String) -> TestFailure {
            TestFailure("\(what): \(String(cString: strerror(errno)))")
        }
    }

    @Test func theFacadeEmptiesADeepTree() throws {
        let container = try DeepContainer("facade")
        defer { container.remove() }
        #expect(try container.temporaryEntries().sorted() == ["d", "level-0.txt"])

        try Container(rootPath: container.root).emptyTemporaryDirectory()

        #expect(try container.temporaryEntries().isEmpty)
        #expect(try String(contentsOfFile: container.outsideFile, encoding: .utf8) == "kept")
    }

    /// `plugboard run`'s built-in files plugin empties `tmp` at will-terminate
    /// (last, after every other plugin heard it); the run ends normally.
    @Test func runEmptiesADeepTreeAtTerminateAndThePluginsGetTheirEvents() throws {
        let container = try DeepContainer("run")
        defer { container.remove() }
        let plugins = container.work.file("plugins")
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: false)
        try PluginCompiler.lenientFixture("good.so", in: plugins, ["FIX_ID=\"com.deep.good\"", "FIX_LAUNCH=1", "FIX_TERMINATE"])

        // Emptying 50,000 folders may outlast the default call timeout on a loaded machine,
        // whose warning is not what this test is about.
        let result = try CLI.run(["run", "--plugin-dir", plugins, "--container", container.root, "--json",
                                  "--call-timeout", "0"])

        #expect(result.status == 0, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        let objects = try #require(CLI.runLines(result.output), "\(result.output)")
        let logs = objects.compactMap(\.log).map(\.message)
        #expect(logs == ["will-finish-launching", "did-finish-launching", "will-terminate", "deinit"], "\(result.output)")
        #expect(objects.last?.exitCode == 0, "\(result.output)")
        #expect(try container.temporaryEntries().isEmpty)
        #expect(try String(contentsOfFile: container.outsideFile, encoding: .utf8) == "kept")
    }
}
