import Foundation
import Glibc
import PlugboardChildProcess

/// Where the package, its headers, the fixtures and the built `plugboard` binary are.
enum TestPaths {
    /// The package root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let include = packageRoot.appendingPathComponent("include").path
    static let fixtures = packageRoot.appendingPathComponent("Tests/PlugboardTests/Fixtures").path

    /// The process environment with XDG_DATA_HOME and the scan cache in temporary folders,
    /// so a `plugboard run` without `--container`, or a `list`, never writes into the real home.
    /// The folders are removed when the test process exits.
    static let hermeticEnvironment: [String: String] = {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = HermeticFolders.dataHome
        environment["PLUGBOARD_CACHE_DIR"] = HermeticFolders.cache
        atexit { HermeticFolders.remove() }
        return environment
    }()

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

    /// The `plugboard-worker` executable built next to `plugboard`.
    static var worker: String {
        URL(fileURLWithPath: plugboard).deletingLastPathComponent().appendingPathComponent("plugboard-worker").path
    }
}

/// The test process's own data home and scan cache (``TestPaths/hermeticEnvironment``).
enum HermeticFolders {
    static let dataHome = NSTemporaryDirectory() + "/plugboard-tests-xdg-\(getpid())"
    static let cache = NSTemporaryDirectory() + "/plugboard-tests-cache-\(getpid())"

    /// Removes both, as the test process exits.
    static func remove() {
        for folder in [dataHome, cache] { try? FileManager.default.removeItem(atPath: folder) }
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

/// Copies the program at `source` to the new file `destination`, writing through a close-on-exec
/// descriptor: Foundation's copy leaves its descriptor open across `exec`, and a child that another
/// test starts meanwhile would keep the copy open for writing, so running it would fail with
/// "Text file busy".
func copyProgram(_ source: String, to destination: String) throws {
    let contents = try Data(contentsOf: URL(fileURLWithPath: source))
    let descriptor = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
    guard descriptor >= 0 else { throw TestFailure("cannot create \(destination): \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    try contents.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress?.advanced(by: offset), bytes.count - offset)
            guard written > 0 else { throw TestFailure("cannot write \(destination): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }
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

    /// Builds `Fixtures/hostile_plugin.c` into `directory/name` with the given
    /// `-D` definitions (`"SEGV_AT=AT_OPEN_URL"`); as C++ when `cplusplus` (for `THROW_AT`).
    @discardableResult
    static func hostile(_ name: String, in directory: String, _ definitions: [String],
                        cplusplus: Bool = false) throws -> String {
        try compile(TestPaths.fixtures + "/hostile_plugin.c", to: directory + "/" + name,
                    flags: definitions.map { "-D" + $0 }, cplusplus: cplusplus)
    }

    /// Compiles `source` (a path) into a shared library at `output`, as C11 or, when `cplusplus`, as C++17,
    /// against the headers in `include` (the package's by default).
    @discardableResult
    static func compile(_ source: String, to output: String, flags: [String] = [], cplusplus: Bool = false,
                        include: String = TestPaths.include) throws -> String {
        let language = cplusplus ? ["c++", "-x", "c++", "-std=c++17"] : ["cc", "-std=c11"]
        let result = try run("/usr/bin/env", language + ["-Wall", "-Wextra", "-Werror", "-O1", "-shared", "-fPIC",
                                                         "-fvisibility=hidden", "-I", include] + flags
                                                         + [source, "-o", output, "-lpthread"])
        guard result.status == 0 else { throw TestFailure("\(language[0]) failed for \(output):\n\(result.output)") }
        return output
    }
}

/// The outcome of a child process.
struct ProcessResult {
    /// The process's id (gone by now).
    let pid: pid_t
    let status: Int32
    let output: String
    let errorOutput: String
}

/// Runs `executable` with `arguments`, `input` on its standard input (end of file
/// when nil), in `workingDirectory` (this process's when nil), and waits for it.
/// The environment is `TestPaths.hermeticEnvironment` unless `environment` is given.
/// `passing` hands the child more descriptors (child's number: this process's descriptor).
/// A child that ends by signal N has status 128 + N.
func run(_ executable: String, _ arguments: [String], input: String? = nil,
         environment: [String: String]? = nil, workingDirectory: String? = nil,
         passing descriptors: [Int32: Int32] = [:]) throws -> ProcessResult {
    let child = try ChildProcess(executable, arguments, environment: environment ?? TestPaths.hermeticEnvironment,
                                 workingDirectory: workingDirectory, input: .pipe, output: .pipe, error: .pipe,
                                 passing: descriptors)
    let finished = try child.collect(input: Array((input ?? "").utf8))
    return ProcessResult(pid: child.pid, status: finished.termination.code, output: String(decoding: finished.output, as: UTF8.self),
                         errorOutput: String(decoding: finished.errorOutput, as: UTF8.self))
}
