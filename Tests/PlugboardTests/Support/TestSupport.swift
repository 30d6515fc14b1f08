import Foundation
import Glibc

/// Where the package, its headers, the fixtures and the built `plugboard` binary are.
enum TestPaths {
    /// The package root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let include = packageRoot.appendingPathComponent("include").path
    static let fixtures = packageRoot.appendingPathComponent("Tests/PlugboardTests/Fixtures").path

    /// The process environment with XDG_DATA_HOME in a temporary folder, so a
    /// `plugboard run` without `--container` never writes into the real home.
    static let hermeticEnvironment: [String: String] = {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = NSTemporaryDirectory() + "/plugboard-tests-xdg-\(getpid())"
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

    /// Builds `Fixtures/hostile_plugin.c` into `directory/name` with the given
    /// `-D` definitions (`"SEGV_AT=AT_OPEN_URL"`); as C++ when `cplusplus` (for `THROW_AT`).
    @discardableResult
    static func hostile(_ name: String, in directory: String, _ definitions: [String],
                        cplusplus: Bool = false) throws -> String {
        try compile(TestPaths.fixtures + "/hostile_plugin.c", to: directory + "/" + name,
                    flags: definitions.map { "-D" + $0 }, cplusplus: cplusplus)
    }

    /// Compiles `source` (a path) into a shared library at `output`, as C11 or, when `cplusplus`, as C++17.
    @discardableResult
    static func compile(_ source: String, to output: String, flags: [String] = [], cplusplus: Bool = false) throws -> String {
        let language = cplusplus ? ["c++", "-x", "c++", "-std=c++17"] : ["cc", "-std=c11"]
        let result = try run("/usr/bin/env", language + ["-Wall", "-Wextra", "-Werror", "-O1", "-shared", "-fPIC",
                                                         "-fvisibility=hidden", "-I", TestPaths.include] + flags
                                                         + [source, "-o", output, "-lpthread"])
        guard result.status == 0 else { throw TestFailure("\(language[0]) failed for \(output):\n\(result.output)") }
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
///
/// Spawned with an empty signal mask: Foundation's `Process` would hand the child
/// the test thread's mask, where SIGCHLD and friends are blocked (cmake then
/// never notices its own children exit, and `plugboard run` could not be interrupted).
func run(_ executable: String, _ arguments: [String], input: String? = nil,
         environment: [String: String]? = nil) throws -> ProcessResult {
    var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
    guard pipe(&inPipe) == 0, pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
        throw TestFailure("pipe failed: \(String(cString: strerror(errno)))")
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    for fd in inPipe + outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var mask = sigset_t(), defaults = sigset_t()
    sigemptyset(&mask)
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigmask(&attributes, &mask)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let env = (environment ?? TestPaths.hermeticEnvironment).map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + env).forEach { free($0) } }
    var child: pid_t = 0
    let status = posix_spawn(&child, executable, &actions, &attributes, argv, env)
    close(inPipe[0])
    close(outPipe[1])
    close(errPipe[1])
    guard status == 0 else {
        [inPipe[1], outPipe[0], errPipe[0]].forEach { close($0) }
        throw TestFailure("posix_spawn \(executable) failed: \(String(cString: strerror(status)))")
    }
    if let input {
        _ = input.utf8CString.withUnsafeBytes { write(inPipe[1], $0.baseAddress, $0.count - 1) }
    }
    close(inPipe[1])
    var output = [UInt8](), errorOutput = [UInt8]()
    var open = [outPipe[0], errPipe[0]]
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while !open.isEmpty {
        var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), -1) >= 0 || errno == EINTR else { break }
        for entry in fds where entry.revents != 0 {
            let count = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
            if count <= 0 {
                close(entry.fd)
                open.removeAll { $0 == entry.fd }
            } else if entry.fd == outPipe[0] {
                output += chunk[..<count]
            } else {
                errorOutput += chunk[..<count]
            }
        }
    }
    var exit: Int32 = 0
    while waitpid(child, &exit, 0) < 0 && errno == EINTR {}
    let code = (exit & 0x7f) == 0 ? (exit >> 8) & 0xff : 128 + (exit & 0x7f)
    return ProcessResult(status: code, output: String(decoding: output, as: UTF8.self),
                         errorOutput: String(decoding: errorOutput, as: UTF8.self))
}
