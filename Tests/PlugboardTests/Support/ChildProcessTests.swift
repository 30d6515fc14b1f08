import Foundation
import Glibc
import PlugboardChildProcess
import Testing

/// The one spawner of the tests and the benchmark: signals, streams, working
/// directory, errors, and no child left behind.
@Suite struct ChildProcessTests {
    /// The `Sig…` line of the child's own /proc status (grep is exec'd by env, same process).
    private func signalLine(_ field: String, blocking blocked: [Int32] = []) throws -> String {
        let child = try ChildProcess("/usr/bin/env", ["grep", "^\(field):", "/proc/self/status"],
                                     output: .pipe, error: .pipe, blockedSignals: blocked)
        let finished = try child.collect()
        #expect(finished.termination == .exited(0), "\(String(decoding: finished.errorOutput, as: UTF8.self))")
        return String(decoding: finished.output, as: UTF8.self)
    }

    @Test func childStartsWithNoSignalBlockedWhateverThisThreadBlocks() throws {
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        for signal in [SIGINT, SIGTERM, SIGCHLD, SIGPIPE] { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        #expect(try signalLine("SigBlk") == "SigBlk:\t0000000000000000\n")
    }

    @Test func blockedSignalsAreTheChildsWholeMask() throws {
        // Bits SIGINT (2) and SIGTERM (15): 1 << 1 | 1 << 14.
        #expect(try signalLine("SigBlk", blocking: [SIGINT, SIGTERM]) == "SigBlk:\t0000000000004002\n")
    }

    @Test func childStartsWithNoSignalIgnoredWhenThisProcessIgnoresOne() throws {
        var ignore = sigaction(), previous = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigaction(SIGUSR2, &ignore, &previous)
        defer { sigaction(SIGUSR2, &previous, nil) }
        // glibc's posix_spawn leaves its two internal signals (32, 33) ignored: only 1–31 count.
        let line = try signalLine("SigIgn")
        let ignored = try #require(UInt64(line.dropFirst("SigIgn:\t".count).prefix(16), radix: 16), "\(line)")
        #expect(ignored & 0x7FFF_FFFF == 0, "\(line)")
    }

    @Test func runsInTheGivenWorkingDirectory() throws {
        let directory = try TemporaryDirectory("plugboard-child-cwd")
        defer { directory.remove() }
        let result = try run("/usr/bin/env", ["pwd", "-P"], workingDirectory: directory.path)
        let resolved = try #require(realpath(directory.path, nil))
        defer { free(resolved) }
        #expect(result.status == 0 && result.output == String(cString: resolved) + "\n", "\(result)")
    }

    @Test func aChildGetsNoDescriptorItWasNotGiven() throws {
        // Opened without close-on-exec, as another thread's file copy may be when the child starts.
        let leaked = open("/dev/null", O_WRONLY)
        try #require(leaked >= 0)
        defer { close(leaked) }
        let passed = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(passed >= 0)
        defer { close(passed) }
        // `ls` lists its own open descriptors: the three streams, the one passed as 5, and its own directory's.
        let child = try ChildProcess("/usr/bin/env", ["ls", "-1", "/proc/self/fd"], output: .pipe, error: .pipe,
                                     passing: [5: passed])
        let finished = try child.collect()
        let listed = String(decoding: finished.output, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
        #expect(finished.termination == .exited(0), "\(String(decoding: finished.errorOutput, as: UTF8.self))")
        #expect(Set(listed).isSuperset(of: [0, 1, 2, 5]) && listed.count == 5, "\(listed), this process's \(leaked) leaked")
    }

    @Test func aMissingWorkingDirectoryOrProgramIsNamedWithTheCause() throws {
        let missing = NSTemporaryDirectory() + "/plugboard-no-such-directory-\(getpid())"
        #expect { try run("/usr/bin/env", ["true"], workingDirectory: missing) } throws: { error in
            "\(error)" == "cannot start /usr/bin/env in \(missing): No such file or directory"
        }
        #expect { try ChildProcess("plugboard-no-such-program", []) } throws: { error in
            "\(error)" == "cannot start plugboard-no-such-program: No such file or directory"
        }
    }

    @Test func inputAndOutputLargerThanAPipeDoNotDeadlock() throws {
        let text = String(repeating: "0123456789abcdef", count: 65_536)  // 1 MiB each way
        let result = try run("/usr/bin/env", ["cat"], input: text)
        #expect(result.status == 0 && result.output == text)
    }

    @Test func aChildThatNeverReadsItsInputLeavesThisProcessAlive() throws {
        let result = try run("/usr/bin/env", ["true"], input: String(repeating: "x", count: 1 << 20))
        #expect(result.status == 0)

        let child = try ChildProcess("/usr/bin/env", ["true"], input: .pipe)
        #expect(try child.wait() == .exited(0))
        #expect { try child.send(Array("late\n".utf8)) } throws: { error in
            (error as? ChildProcessError)?.cause == .brokenPipe
        }
    }

    @Test func aChildEndedBySignalNHasStatus128PlusN() throws {
        let result = try run("/bin/sh", ["-c", "kill -TERM $$"])
        #expect(result.status == 128 + SIGTERM)
    }

    @Test func aChildLetGoIsKilledAndReaped() throws {
        var pid: pid_t = 0
        do {
            let child = try ChildProcess("/usr/bin/env", ["sleep", "600"], input: .discard, output: .discard)
            pid = child.pid
            #expect(try child.reapIfEnded() == nil)
        }
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD, "child \(pid) was not reaped")
    }
}
