import Foundation
import PlugboardChildProcess
import Testing

@testable import PlugboardFiles

/// Writes must be all-or-nothing even when the writer dies mid-way.
///
/// The test re-executes its own test binary with an environment variable
/// that enables `writerLoop`, a "test" that never returns: it overwrites one
/// file with large versions forever. The parent kills it with SIGKILL at
/// random moments, reading the file while it runs and after each kill, and
/// checks every read is a complete version: header, length and every byte
/// of the body agree. A torn write would show as a short file or a body
/// from another version. A writer killed while it writes leaves nothing: its
/// new file has no name until it is complete.
@Suite struct AtomicWriteKillTests {
    static let rootVariable = "PLUGBOARD_FILES_KILL_TEST_ROOT"
    static let generationVariable = "PLUGBOARD_FILES_KILL_TEST_GENERATION"
    static let target = "target.bin"
    static let kills = 40

    /// The child side; disabled unless spawned by `killedWritersNeverLeaveAPartialFile`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[rootVariable] != nil))
    func writerLoop() throws {
        let environment = ProcessInfo.processInfo.environment
        let root = try #require(environment[Self.rootVariable])
        let generation = try #require(environment[Self.generationVariable].flatMap { UInt32($0) })
        let facade = FileFacade(container: try Container(rootPath: root))
        var sequence: UInt32 = 0
        // Stop if the parent test dies without killing this writer.
        let parent = getppid()
        while getppid() == parent {
            sequence &+= 1
            let version = Version(generation: generation, sequence: sequence)
            try facade.writeBytes(version.contents, to: Self.target, in: .documents, overwrite: true)
        }
    }

    @Test func killedWritersNeverLeaveAPartialFile() throws {
        try Sandbox.with { sandbox in
            let facade = sandbox.facade
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            var seenVersions = Set<Version>()
            var verifiedReads = 0
            var killedWhileWriting = 0
            var generator = SystemRandomNumberGenerator()

            for generation in 1...UInt32(Self.kills) {
                var environment = ProcessInfo.processInfo.environment
                environment[Self.rootVariable] = sandbox.container.rootPath
                environment[Self.generationVariable] = "\(generation)"
                let child = try ChildProcess(executable, ["--testing-library", "swift-testing",
                                                          "--filter", "AtomicWriteKillTests/writerLoop"],
                                             environment: environment, output: .discard, error: .discard)
                // Never leave a writer behind, even when an expectation throws.
                defer { child.stop() }

                // Wait until the child has completed a write, then let it run
                // for a random while, reading the file as it is replaced.
                let startDeadline = Date().addingTimeInterval(30)
                var latest: Version?
                while latest?.generation != generation {
                    let ended = try child.reapIfEnded()
                    try #require(Date() < startDeadline && ended == nil, "writer \(generation) wrote nothing (\(String(describing: ended)))")
                    usleep(1_000)
                    latest = try readVersion(facade)
                    if let latest {
                        seenVersions.insert(latest)
                        verifiedReads += 1
                    }
                }
                let killTime = Date().addingTimeInterval(Double.random(in: 0...0.060, using: &generator))
                while Date() < killTime {
                    if let version = try readVersion(facade) {
                        seenVersions.insert(version)
                        verifiedReads += 1
                    }
                }
                if Self.holdsAnUnnamedFile(child.pid) { killedWhileWriting += 1 }
                try child.signal(SIGKILL)
                #expect(try child.wait() == .signaled(SIGKILL))

                if let version = try readVersion(facade) {
                    seenVersions.insert(version)
                    verifiedReads += 1
                }
                // A leftover of a killed write is a hidden temporary, never the target.
                for entry in try facade.listContents(of: .documents) where entry.name != Self.target {
                    #expect(entry.name.hasPrefix(AtomicWrite.temporaryNamePrefix) || entry.name == "Inbox", "\(entry.name)")
                }
            }

            let leftovers = try facade.listContents(of: .documents)
                .filter { $0.name.hasPrefix(AtomicWrite.temporaryNamePrefix) }
            print("kill test: \(Self.kills) kills, \(killedWhileWriting) while writing, \(verifiedReads) verified reads, "
                  + "\(seenVersions.count) versions, \(leftovers.count) temporaries left")
            // Not vacuous: every writer completed a version that was read and
            // checked, and many were killed while writing one.
            #expect(Set(seenVersions.map(\.generation)) == Set(1...UInt32(Self.kills)))
            #expect(verifiedReads >= Self.kills)
            #expect(killedWhileWriting >= Self.kills / 4)
            // Those left nothing; only a kill in the moment between a new file's link under a
            // temporary name and its rename leaves that name (about one kill in 500 here).
            #expect(leftovers.count <= 2, "\(leftovers.map(\.name))")
        }
    }

    /// Whether the process `pid` holds a file that has no name yet (`O_TMPFILE`), which `/proc`
    /// shows as `<folder>/#<inode> (deleted)`: a write under way.
    private static func holdsAnUnnamedFile(_ pid: pid_t) -> Bool {
        let folder = "/proc/\(pid)/fd"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return descriptors.contains { descriptor in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + descriptor) else { return false }
            return target.split(separator: "/").last?.hasPrefix("#") == true && target.hasSuffix(" (deleted)")
        }
    }

    /// Reads the target and checks it is one complete version; nil when absent.
    private func readVersion(_ facade: FileFacade, sourceLocation: SourceLocation = #_sourceLocation) throws -> Version? {
        let bytes: [UInt8]
        do {
            bytes = try facade.readBytes(Self.target, in: .documents)
        } catch {
            if error.reason == .notFound { return nil }
            throw error
        }
        let version = Version(validating: bytes)
        #expect(version != nil, "partial or mixed file of \(bytes.count) bytes", sourceLocation: sourceLocation)
        return version
    }
}

/// One version of the target file: a header naming the writer and the
/// sequence number, then 1–4 MiB of a byte derived from both.
struct Version: Hashable {
    let generation: UInt32
    let sequence: UInt32

    static let magic = Array("PLUGKILL".utf8)
    static let headerSize = 16

    var length: Int { (1 << 20) + Int(sequence % 4) * (1 << 20) - Int(generation % 7) * 4096 }
    var fill: UInt8 { UInt8(truncatingIfNeeded: generation &* 31 &+ sequence &* 7) | 1 }

    var contents: [UInt8] {
        var bytes = [UInt8](repeating: fill, count: length)
        bytes.replaceSubrange(0..<Self.headerSize, with: Self.magic + Self.bytes(generation) + Self.bytes(sequence))
        return bytes
    }

    init(generation: UInt32, sequence: UInt32) {
        self.generation = generation
        self.sequence = sequence
    }

    /// The version `bytes` holds, if they are exactly one complete version.
    init?(validating bytes: [UInt8]) {
        guard bytes.count > Self.headerSize, bytes.starts(with: Self.magic) else { return nil }
        self.init(generation: Self.word(bytes, at: 8), sequence: Self.word(bytes, at: 12))
        guard bytes.count == length, bytes[Self.headerSize] == fill else { return nil }
        // The body is uniform exactly when it equals itself shifted by one byte.
        let bodyIsUniform = bytes.withUnsafeBytes { buffer in
            guard let body = buffer.baseAddress.map({ $0 + Self.headerSize }) else { return false }
            return memcmp(body, body + 1, length - Self.headerSize - 1) == 0
        }
        if !bodyIsUniform { return nil }
    }

    private static func bytes(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }
}
