import Foundation
import Glibc
import Testing
@testable import plugboard

/// The sandbox escape corpus, end to end through `plugboard run`: `Fixtures/sandbox_escape.c`
/// tries every way out of its worker the sandbox must close (files, network, programs, the host
/// process, namespaces, kernel interfaces, what the worker inherited) from each place plugin code
/// runs (its constructor, `init`, did-finish-launching and a thread it starts there), and reports
/// each try in one line: "escape PLACE ATTEMPT allowed" or "escape PLACE ATTEMPT blocked WHY"
/// (the constructor prints its lines, the others log them).
@Suite struct SandboxEscapeTests {
    static let places = ["constructor", "init", "callback", "thread"]
    static let attempts = ["read-passwd", "read-secret", "write-home", "tcp-listen", "tcp-connect", "udp-send", "unix-abstract",
                           "unix-path", "exec", "exec-memfd", "host-environ", "host-mem", "host-vm-read", "host-ptrace",
                           "host-signal", "host-limits", "userns", "mountns-tmpfs", "chroot", "bpf", "perf", "io-uring",
                           "userfaultfd", "keyctl", "capabilities", "no-new-privs", "env-secret", "chmod-secret",
                           "socketpair-dgram", "inotify", "sysv-shm", "real-uid-root", "death-signal", "dumpable", "fork", "inherited-fd"]
    /// The corpus's file name: the key of its grant in a policy.
    static let library = "libsandbox_escape.so"
    /// The host's PLUGBOARD_TEST_SECRET, which no confined worker gets unless granted.
    static let secretVariable = "PLUGBOARD_TEST_SECRET"
    static let secretValue = "escape-corpus-secret"
    static let script = [#"{"event":"memory-warning"}"#, #"{"event":"did-enter-background"}"#]
    /// Every event of the run, and what each good plugin logs: one line per event.
    static let expectedEvents = ["will-finish-launching", "did-finish-launching", "memory-warning", "did-enter-background",
                                 "will-terminate"]

    /// The default sandbox blocks every attempt in every place, and the good plugins beside the
    /// corpus get every event.
    @Test func theDefaultSandboxBlocksEveryAttemptFromEveryPlace() throws {
        let targets = try Targets()
        defer { targets.close() }
        let run = try Self.run(targets)
        var failures = run.strays.map { "unexpected line: \($0)" }
        for place in Self.places {
            for attempt in Self.attempts where !Self.isBlocked(run.verdicts["\(place) \(attempt)"]) {
                failures.append("\(place) \(attempt): \(run.verdicts["\(place) \(attempt)"] ?? "no line")")
            }
        }
        let total = Self.places.count * Self.attempts.count
        #expect(failures.isEmpty, "\(run.listing(failures, "of \(total) attempts got out or were not reported"))")
        Self.expectGoodPluginsGotEveryEvent(run)
        #expect(run.result.status == 0, "\(run.context)")
        // Refused system calls are reported once per kind, naming the plugin and the grant that allows them.
        let reports = run.lines.compactMap(\.log).map(\.message).filter { $0.hasPrefix("sandbox: ") }
        #expect(reports.contains { $0.contains(" tried to open a TCP socket")
                    && $0.hasSuffix("; grant \"network\" to \(Self.library) in the policy's \"libraries\" to allow it") }, "\(reports)")
        #expect(reports.contains { $0.contains(" tried to start a process")
                    && $0.hasSuffix("; grant \"execute\" to \(Self.library) in the policy's \"libraries\" to allow it") }, "\(reports)")
        #expect(reports.contains { $0.contains(" tried to call bpf") && $0.hasSuffix("; no grant allows it") }, "\(reports)")
        #expect(reports.contains { $0.contains(" tried to stop dying with the host (prctl PR_SET_PDEATHSIG)") }, "\(reports)")
        #expect(reports.filter { $0.contains("tried to open a TCP socket") }.count == 1, "one report per kind: \(reports)")
    }

    /// Without the sandbox the corpus gets out: it can fail.
    @Test func withTheSandboxOffTheCorpusGetsOut() throws {
        let targets = try Targets()
        defer { targets.close() }
        let run = try Self.run(targets, ["--sandbox", "off"])
        var failures = run.strays.map { "unexpected line: \($0)" }
        for place in Self.places {
            for attempt in Self.attempts {
                let verdict = run.verdicts["\(place) \(attempt)"]
                if verdict == nil {
                    failures.append("\(place) \(attempt): no line")
                } else if ["read-secret", "tcp-connect", "exec", "env-secret"].contains(attempt), !Self.isAllowed(verdict) {
                    failures.append("\(place) \(attempt): \(verdict ?? "") (allowed without a sandbox)")
                }
            }
        }
        #expect(failures.isEmpty, "\(run.listing(failures, "unexpected verdicts"))")
        Self.expectGoodPluginsGotEveryEvent(run)
        #expect(run.result.status == 0, "\(run.context)")
    }

    /// A policy's grant for the corpus's library lets through exactly what it grants: reading the
    /// secret, writing the stand-in home, connecting to the one port, running /bin/true and the
    /// one variable. Every other attempt stays blocked.
    @Test func aLibraryGrantAllowsWhatItGrantsAndNothingElse() throws {
        let targets = try Targets()
        defer { targets.close() }
        let grant: [String: Any] = ["read": [targets.secretFile], "write": [targets.writeDirectory],
                                    "network": ["connect": [Int(targets.port)]], "execute": ["/bin/true"],
                                    "environment": [Self.secretVariable]]
        let policy = targets.workspace.root.file("policy.json")
        try JSONSerialization.data(withJSONObject: ["libraries": [Self.library: grant]], options: [.sortedKeys])
            .write(to: URL(fileURLWithPath: policy))
        let run = try Self.run(targets, ["--policy", policy])

        // An execute grant lets the plugin start processes too (a program runs in one).
        let granted = ["read-secret", "write-home", "tcp-connect", "exec", "env-secret", "fork"]
        var failures = run.strays.map { "unexpected line: \($0)" }
        for place in Self.places {
            for attempt in Self.attempts {
                let verdict = run.verdicts["\(place) \(attempt)"]
                if !granted.contains(attempt) {
                    if !Self.isBlocked(verdict) { failures.append("\(place) \(attempt): \(verdict ?? "no line") (not granted)") }
                } else if place == "callback" || place == "thread" {
                    if !Self.isAllowed(verdict) { failures.append("\(place) \(attempt): \(verdict ?? "no line") (granted)") }
                }
            }
        }
        #expect(failures.isEmpty, "\(run.listing(failures, "verdicts differ from the grant"))")
        Self.expectGoodPluginsGotEveryEvent(run)
        #expect(run.result.status == 0, "\(run.context)")
    }

    // MARK: - Running the corpus

    /// One run of the corpus beside the good plugins.
    struct CorpusRun {
        let result: ProcessResult
        let lines: [RunLine]
        /// The corpus's verdict of each "PLACE ATTEMPT": "allowed", "allowed 7", "blocked EPERM".
        let verdicts: [String: String]
        /// The corpus's lines that are not a first verdict of a known place and attempt
        /// ("escape thread not-started EAGAIN", a second verdict).
        let strays: [String]

        /// What a failure message shows besides: the exit status, the lines that are not verdicts,
        /// standard error.
        var context: String {
            let others = result.output.split(separator: "\n").filter { !$0.contains(#""escape "#) }
            return "exit \(result.status)\n" + others.joined(separator: "\n") + "\n" + result.errorOutput
        }

        /// "N what:", then `failures` one a line, then the ``context``.
        func listing(_ failures: [String], _ what: String) -> String {
            "\(failures.count) \(what):\n" + failures.joined(separator: "\n") + "\n\n" + context
        }
    }

    static func isBlocked(_ verdict: String?) -> Bool { verdict == "blocked" || verdict?.hasPrefix("blocked ") == true }
    static func isAllowed(_ verdict: String?) -> Bool { verdict == "allowed" || verdict?.hasPrefix("allowed ") == true }

    /// Builds the corpus aimed at `targets` and the two good plugins, and runs
    /// `plugboard run --json` over them, with the secret variable in its environment and the
    /// events of `script`. Checks afterwards that nothing was left behind.
    static func run(_ targets: Targets, _ extra: [String] = []) throws -> CorpusRun {
        let plugins = targets.workspace.plugins
        try PluginCompiler.compile(TestPaths.fixtures + "/sandbox_escape.c", to: plugins + "/" + library,
                                   flags: targets.definitions.map { "-D" + $0 })
        try GoodPlugins.build(in: plugins)
        let events = try targets.workspace.events(script)
        let result = try CLI.run(["run", "--json", "--plugin-dir", plugins, "--container", targets.workspace.root.file("container"),
                                  "--events", events] + extra,
                                 environment: [secretVariable: secretValue])
        let lines = try #require(CLI.runLines(result.output), "a line is not a run line:\n\(result.output)\n\(result.errorOutput)")

        var verdicts: [String: String] = [:]
        var strays: [String] = []
        for line in lines {
            let text: String? = switch line {
            case .log(let record) where record.source.hasSuffix("/" + library): record.message
            case .output(let printed) where printed.source.hasSuffix("/" + library): printed.text
            default: nil
            }
            guard let text, text.hasPrefix("escape ") else { continue }
            let words = text.split(separator: " ", maxSplits: 3).map(String.init)
            if words.count == 4, places.contains(words[1]), attempts.contains(words[2]), verdicts["\(words[1]) \(words[2])"] == nil {
                verdicts["\(words[1]) \(words[2])"] = words[3]
            } else {
                strays.append(text)
            }
        }

        #expect(try FileManager.default.contentsOfDirectory(atPath: targets.writeDirectory).isEmpty,
                "the corpus left files in its write folder")
        return CorpusRun(result: result, lines: lines, verdicts: verdicts, strays: strays)
    }

    /// Every event reported, each good plugin's log one line per event.
    static func expectGoodPluginsGotEveryEvent(_ run: CorpusRun, sourceLocation: SourceLocation = #_sourceLocation) {
        let events = run.lines.eventNames
        #expect(events == expectedEvents, "\(run.context)", sourceLocation: sourceLocation)
        for id in GoodPlugins.ids {
            let logs = run.lines.logs(of: id)
            #expect(logs == expectedEvents, "\(id): \(run.context)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - The corpus's targets

    /// What the corpus aims at, all in one workspace: a secret file, a write folder (the stand-in
    /// for $HOME), a TCP listener on 127.0.0.1, an abstract Unix listener with a unique name and a
    /// Unix listener at a path. Nothing accepts: the kernel completes connections into the backlog.
    /// ``close()`` closes the listeners and removes the workspace.
    struct Targets {
        let workspace: Workspace
        let secretFile: String
        let writeDirectory: String
        let unixPath: String
        let abstractName: String
        private(set) var port: UInt16 = 0
        private var listeners: [Int32] = []

        init() throws {
            workspace = try Workspace("sandbox-escape")
            secretFile = workspace.root.file("secret.txt")
            writeDirectory = workspace.root.file("home")
            unixPath = workspace.root.file("listener.sock")
            abstractName = "plugboard-escape-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
            do {
                try workspace.root.write("secret.txt", "the secret\n")
                try FileManager.default.createDirectory(atPath: writeDirectory, withIntermediateDirectories: false)
                try listenOnLoopback()
                try listenOnUnix(abstractName, abstract: true)
                try listenOnUnix(unixPath, abstract: false)
            } catch {
                close()
                throw error
            }
        }

        /// The corpus's compile-time definitions.
        var definitions: [String] {
            ["SECRET_PATH=\"\(secretFile)\"", "WRITE_DIR=\"\(writeDirectory)\"", "TCP_PORT=\(port)",
             "ABSTRACT_NAME=\"\(abstractName)\"", "UNIX_PATH=\"\(unixPath)\""]
        }

        func close() {
            for descriptor in listeners { Glibc.close(descriptor) }
            workspace.remove()
        }

        private mutating func listenOnLoopback() throws {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let descriptor = try Self.listener(AF_INET, &address, length: MemoryLayout<sockaddr_in>.size)
            listeners.append(descriptor)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard named == 0 else { throw TestFailure("getsockname failed: \(String(cString: strerror(errno)))") }
            port = UInt16(bigEndian: address.sin_port)
        }

        /// Listens on the Unix socket `name`: a path, or an abstract name (a NUL, then the name,
        /// the address exactly that long, as the corpus connects).
        private mutating func listenOnUnix(_ name: String, abstract: Bool) throws {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(name.utf8)
            let start = abstract ? 1 : 0
            guard start + bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
                throw TestFailure("the Unix socket name is too long for sun_path: \(name)")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { path in
                for (index, byte) in bytes.enumerated() { path[start + index] = byte }
            }
            let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
            let length = abstract ? pathOffset + 1 + bytes.count : MemoryLayout<sockaddr_un>.size
            listeners.append(try Self.listener(AF_UNIX, &address, length: length))
        }

        /// A close-on-exec stream socket of `family` bound to `address` and listening.
        private static func listener<Address>(_ family: Int32, _ address: inout Address, length: Int) throws -> Int32 {
            let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { throw TestFailure("socket failed: \(String(cString: strerror(errno)))") }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(length)) }
            }
            guard bound == 0, listen(descriptor, 128) == 0 else {
                let error = String(cString: strerror(errno))
                Glibc.close(descriptor)
                throw TestFailure("cannot listen: \(error)")
            }
            return descriptor
        }
    }
}
