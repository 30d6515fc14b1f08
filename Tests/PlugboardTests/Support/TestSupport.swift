import Foundation
import Glibc

/// Where the package, its headers, the fixtures and the built `plugboard` binary are.
enum TestPaths {
    /// The package root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let include = packageRoot.appendingPathComponent("include").path
    static let fixtures = packageRoot.appendingPathComponent("Tests/PlugboardTests/Fixtures").path

    /// The `plugboard` executable next to the test bundle (the test target depends on it).
    static var plugboard: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("plugboard").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        return "plugboard"
    }
}

/// A fresh directory under the system's temporary folder, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init(_ label: String = "plugboard-test") throws {
        var template = Array((NSTemporaryDirectory() + "/\(label)-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw TestFailure("mkdtemp failed: \(String(cString: strerror(errno)))") }
        path = String(cString: created)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func write(_ name: String, _ contents: String) throws {
        try contents.write(toFile: file(name), atomically: false, encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A test setup problem, with its reason.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Compiles real plugin libraries with the system C compiler.
enum PluginCompiler {
    /// Builds `Fixtures/configurable_plugin.c` with the given `-D` definitions into `directory/name`.
    @discardableResult
    static func fixture(_ name: String, in directory: TemporaryDirectory, _ definitions: [String]) throws -> String {
        try compile(TestPaths.fixtures + "/configurable_plugin.c", to: directory.file(name),
                    flags: definitions.map { "-D" + $0 })
    }

    /// Compiles `source` (a path) into a shared library at `output`.
    @discardableResult
    static func compile(_ source: String, to output: String, flags: [String] = []) throws -> String {
        let result = try run("/usr/bin/env", ["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-shared", "-fPIC",
                                             "-fvisibility=hidden", "-I", TestPaths.include] + flags
                                             + [source, "-o", output, "-lpthread"])
        guard result.status == 0 else { throw TestFailure("cc failed for \(output):\n\(result.output)") }
        return output
    }
}

/// The outcome of a child process.
struct ProcessResult {
    let status: Int32
    let output: String
    let errorOutput: String
}

/// Runs `executable` with `arguments` and optional standard input; waits for it.
func run(_ executable: String, _ arguments: [String], input: String? = nil,
         environment: [String: String]? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = stdin
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                         errorOutput: String(decoding: err, as: UTF8.self))
}
