import Foundation
import Testing

@testable import PlugboardFiles

/// A fresh container for one test, next to an "outside" directory the
/// facade must never touch, both under a unique temporary directory that is
/// removed afterwards.
struct Sandbox {
    /// The unique directory holding `container` and `outside`.
    let base: URL
    let container: Container
    let facade: FileFacade
    /// A sibling of the container root with bait files.
    let outside: URL

    /// Runs `body` with a new sandbox whose container directories exist.
    @discardableResult
    static func with<Result>(_ body: (Sandbox) throws -> Result) throws -> Result {
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("PlugboardFilesTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        // Removed through descriptors: the corpus makes paths longer than
        // PATH_MAX, which path-based removal cannot reach.
        defer {
            try? DirectoryDescriptor.open(absolutePath: base.path).removeContents()
            rmdir(base.path)
        }
        let container = try Container(root: base.appendingPathComponent("container", isDirectory: true))
        try container.createDirectories()
        let outside = base.appendingPathComponent("outside", isDirectory: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: outside.appendingPathComponent("secret.txt"))
        try FileManager.default.createDirectory(
            at: outside.appendingPathComponent("nested"), withIntermediateDirectories: true)
        try Data("nested secret".utf8).write(to: outside.appendingPathComponent("nested/deep.txt"))
        let sandbox = Sandbox(base: base, container: container, facade: FileFacade(container: container), outside: outside)
        return try body(sandbox)
    }

    /// The absolute path of a path relative to the container root.
    func path(_ relativePath: String) -> String {
        container.rootPath + "/" + relativePath
    }

    /// Plants a symbolic link at `relativePath` (inside the container) pointing at `target`.
    func plantSymlink(_ relativePath: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path(relativePath), withDestinationPath: target)
    }

    /// Creates an empty file whose last path component is `rawName`, bytes
    /// that need not be UTF-8 (as a program other than the facade may make).
    func createFile(in relativeFolder: String, rawName: [UInt8]) throws {
        let path = Array(self.path(relativeFolder + "/").utf8) + rawName
        let descriptor = open(path.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(descriptor >= 0)
        close(descriptor)
    }

    /// Everything under the sandbox base except the container: names, kinds,
    /// contents and modification times. Comparing two snapshots proves the
    /// facade neither changed nor created anything outside the container.
    func snapshotOutside() throws -> [String: String] {
        var snapshot: [String: String] = [:]
        let baseEntries = try FileManager.default.contentsOfDirectory(atPath: base.path)
        snapshot["<base>"] = baseEntries.sorted().joined(separator: "|")
        try record(outside.path, as: "outside", into: &snapshot)
        return snapshot
    }

    private func record(_ path: String, as label: String, into snapshot: inout [String: String]) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else { throw POSIXError(.ENOENT) }
        let modified = "\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
            snapshot[label] = "dir mode=\(status.st_mode) mtime=\(modified) [\(names.joined(separator: "|"))]"
            for name in names {
                try record(path + "/" + name, as: label + "/" + name, into: &snapshot)
            }
        case S_IFREG:
            let contents = try Data(contentsOf: URL(fileURLWithPath: path))
            snapshot[label] = "file mode=\(status.st_mode) mtime=\(modified) \(contents.base64EncodedString())"
        default:
            snapshot[label] = "other mode=\(status.st_mode) mtime=\(modified)"
        }
    }
}

/// Runs `body`, which must fail with `reason`, and returns the error for further checks.
@discardableResult
func expectFailure<Result>(
    _ reason: FileFacadeError.Reason,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws(FileFacadeError) -> Result
) -> FileFacadeError? {
    do {
        _ = try body()
        Issue.record("expected failure \(reason), but it succeeded", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(error.reason == reason, "\(error)", sourceLocation: sourceLocation)
        return error
    }
}
