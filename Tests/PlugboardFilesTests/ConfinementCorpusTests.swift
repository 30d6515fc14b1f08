import Foundation
import Testing

@testable import PlugboardFiles

@Suite struct ConfinementCorpusTests {
    static let seed: UInt64 = 0x5EED_F11E_5AFE
    static let corpusSize = 10_000
    /// The corpus runs as two halves in parallel, each in its own sandbox,
    /// so one half's fsync waits overlap the other's work.
    static let halves = [0..<corpusSize / 2, corpusSize / 2..<corpusSize]
    /// Each name gets every operation except that the two-way ones alternate
    /// direction (and write its variant) every ten names: every name is
    /// still written, read, renamed, copied, moved, described and deleted,
    /// with half the fsyncs.
    static let alternatingOperations: [Set<String>] = [
        ["write", "copy from", "move from", "rename to"],
        ["write overwriting, creating folders", "copy to", "move to", "rename from"],
    ]

    /// Ten thousand random and adversarial names (in two halves), each tried
    /// with every facade operation (see `alternatingOperations`) in a
    /// rotating directory, with links to the outside planted (and
    /// re-planted) in every directory.
    /// Afterwards the sibling "outside" directory must be exactly as before:
    /// same names, kinds, contents and modification times, and nothing new
    /// next to it.
    @Test(arguments: halves)
    func namesNeverReachOutside(_ indices: Range<Int>) throws {
        try Sandbox.with { sandbox in
            let names = NameCorpus.names(
                indices, seed: Self.seed, outside: sandbox.outside.path, containerRoot: sandbox.container.rootPath)
            let facade = sandbox.facade
            let before = try sandbox.snapshotOutside()

            var successes: [String: Int] = [:]
            var refusals: [FileFacadeError.Reason: Int] = [:]
            var attempts = 0
            for (index, name) in zip(indices, names) {
                try plantLinksAndPartners(sandbox)
                let directory = AppDirectory.allCases[index % 4]
                let partnerDirectory = AppDirectory.allCases[(index / 4) % 4]
                // Per ten names, as the corpus categories cycle every ten.
                let skipped = Self.alternatingOperations[(index / 10 + 1) % 2]
                let operations = everyOperation(
                    facade, on: name, in: directory, partner: "partner", partnerDirectory: partnerDirectory
                ).filter { !skipped.contains($0.label) }
                for operation in operations {
                    attempts += 1
                    do throws(FileFacadeError) {
                        try operation.run()
                        successes[operation.label, default: 0] += 1
                    } catch {
                        refusals[error.reason, default: 0] += 1
                    }
                }
                expectSpelledInside(facade, name: name, in: directory)
            }

            #expect(try sandbox.snapshotOutside() == before)
            #expect(Self.halves.map(\.count).reduce(0, +) == Self.corpusSize)
            #expect(names.count == Self.corpusSize / 2)
            #expect(attempts == names.count * 12)
            #expect(successes.values.reduce(0, +) + refusals.values.reduce(0, +) == attempts)
            // Every kind of case was really exercised, not just refused early.
            for label in [
                "write", "write overwriting, creating folders", "read", "copy from", "copy to", "move from",
                "move to", "rename from", "rename to", "change extension", "attributes",
            ] {
                #expect(successes[label, default: 0] >= 100, "\(label): \(successes)")
            }
            // Few names survive until "delete" (earlier moves and renames take
            // them away), and few valid names are folders; but some are.
            #expect(successes["delete", default: 0] >= 20, "\(successes)")
            #expect(successes["list", default: 0] >= 10, "\(successes)")
            #expect(refusals[.escapesContainer, default: 0] > 5_000, "\(refusals)")
            #expect(refusals[.symbolicLink, default: 0] > 1_000, "\(refusals)")
            #expect(refusals[.invalidName(.containsNUL), default: 0] > 100, "\(refusals)")
            #expect(count(refusals, { if case .componentTooLong = $0 { true } else { false } }) > 100, "\(refusals)")
            #expect(count(refusals, { if case .containsControlCharacter = $0 { true } else { false } }) > 100, "\(refusals)")
            #expect(count(refusals, { if case .tooLong = $0 { true } else { false } }) > 100, "\(refusals)")
            #expect(refusals[.invalidName(.emptySegment), default: 0] > 100, "\(refusals)")
            #expect(refusals[.invalidName(.currentDirectorySegment), default: 0] > 100, "\(refusals)")
        }
    }

    /// The refusals for invalid names of one kind, whatever their details (lengths, characters).
    private func count(
        _ refusals: [FileFacadeError.Reason: Int], _ kind: (FileFacadeError.InvalidNameReason) -> Bool
    ) -> Int {
        refusals.reduce(0) { total, refusal in
            guard case .invalidName(let why) = refusal.key, kind(why) else { return total }
            return total + refusal.value
        }
    }

    /// `path(for:)` only spells; when it accepts a name, the spelling must
    /// stay lexically inside the directory.
    private func expectSpelledInside(_ facade: FileFacade, name: String, in directory: AppDirectory) {
        guard let path = try? facade.path(for: name, in: directory) else { return }
        let prefix = facade.container.path(of: directory) + "/"
        #expect(path.utf8.starts(with: prefix.utf8))
        let components = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        #expect(!components.contains { $0.isEmpty || $0.elementsEqual("..".utf8) || $0.elementsEqual(".".utf8) })
    }

    /// Restores what earlier operations may have removed or replaced: the
    /// standard directories, a "partner" file in every directory, and the
    /// links pointing outside.
    private func plantLinksAndPartners(_ sandbox: Sandbox) throws {
        for directory in AppDirectory.allCases {
            let base = directory.relativePath
            try ensureDirectory(sandbox.path(base))
            try ensureFile(sandbox.path(base + "/partner"))
            try ensureDirectory(sandbox.path(base + "/sub"))
            let depth = directory.components.count
            let relativeOutside = String(repeating: "../", count: depth + 1) + "outside"
            try ensureLink(sandbox.path(base + "/escape"), to: sandbox.outside.path)
            try ensureLink(sandbox.path(base + "/escapeRelative"), to: relativeOutside)
            try ensureLink(sandbox.path(base + "/escapeFile"), to: sandbox.outside.path + "/secret.txt")
            try ensureLink(sandbox.path(base + "/loop"), to: "loop")
            try ensureLink(sandbox.path(base + "/sub/escape"), to: sandbox.outside.path)
        }
    }

    /// Creates a fixture file the quick way (no fsync: it is no test subject).
    private func ensureFile(_ path: String) throws {
        var status = stat()
        if lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG { return }
        try? FileManager.default.removeItem(atPath: path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        close(descriptor)
    }

    private func ensureDirectory(_ path: String) throws {
        var status = stat()
        if lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR { return }
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }

    private func ensureLink(_ path: String, to target: String) throws {
        var status = stat()
        if lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK { return }
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }
}
