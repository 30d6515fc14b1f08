import Foundation
import Glibc
import Testing

/// `plugboard files`, driven through the real binary, each test in its own container.
@Suite struct FilesCommandTests {
    // MARK: write and cat

    @Test func writeTextThenCat() throws {
        let workspace = try FilesWorkspace("write-text")
        defer { workspace.remove() }
        FilesExpect.success(try workspace.files(["write", "Documents/a.txt", "--text", "héllo\nworld"]), "write")
        #expect(workspace.text(workspace.path("Documents/a.txt")) == "héllo\nworld")
        let cat = try workspace.files(["cat", "Documents/a.txt"])
        FilesExpect.success(cat, "cat")
        #expect(cat.output == "héllo\nworld")
        // An empty --text makes an empty file.
        FilesExpect.success(try workspace.files(["write", "tmp/empty", "--text", ""]), "write empty")
        #expect(workspace.bytes(workspace.path("tmp/empty")) == [])
    }

    @Test func writeFromStandardInputAndCatAreByteExact() throws {
        let workspace = try FilesWorkspace("write-binary")
        defer { workspace.remove() }
        // Every byte value, NUL and 0xFF again, and sequences that are not UTF-8.
        let payload: [UInt8] = Array(0...255) + [0, 0xFF, 0, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0x0A, 0xFF]
        let input = workspace.root.file("input.bin"), output = workspace.root.file("output.bin")
        try Data(payload).write(to: URL(fileURLWithPath: input))

        FilesExpect.success(try workspace.filesRedirected(
            ["write", "Library/blob.bin", "--container", workspace.container], stdinFile: input), "write from stdin")
        #expect(workspace.bytes(workspace.path("Library/blob.bin")) == payload)

        FilesExpect.success(try workspace.filesRedirected(
            ["cat", "Library/blob.bin", "--container", workspace.container], stdoutFile: output), "cat")
        #expect(workspace.bytes(output) == payload, "cat changed the bytes")

        // Empty standard input makes an empty file.
        FilesExpect.success(try workspace.files(["write", "tmp/nothing"], input: ""), "write empty stdin")
        #expect(workspace.bytes(workspace.path("tmp/nothing")) == [])
    }

    /// Standard input without end (`< /dev/zero`) is read up to the most one write takes, then
    /// refused, and nothing is written (it was read until memory ran out).
    @Test func writeRefusesStandardInputLongerThanOneWrite() throws {
        let workspace = try FilesWorkspace("write-endless")
        defer { workspace.remove() }
        let result = try workspace.filesRedirected(["write", "tmp/zeros", "--container", workspace.container], stdinFile: "/dev/zero")
        FilesExpect.failure(result, ["standard input is longer than 1 GiB, the most one write takes"])
        #expect(workspace.kind(workspace.path("tmp/zeros")) == nil)
    }

    @Test func writeRefusesAnExistingFileWithoutOverwrite() throws {
        let workspace = try FilesWorkspace("write-refuse")
        defer { workspace.remove() }
        FilesExpect.success(try workspace.files(["write", "Documents/a.txt", "--text", "old"]), "first write")

        let refused = try workspace.files(["write", "Documents/a.txt", "--text", "new"])
        FilesExpect.failure(refused, ["write 'a.txt' in Documents", "destination exists", "--overwrite"])
        #expect(workspace.text(workspace.path("Documents/a.txt")) == "old")
        let refusedStdin = try workspace.files(["write", "Documents/a.txt"], input: "new")
        FilesExpect.failure(refusedStdin, ["destination exists"])
        #expect(workspace.text(workspace.path("Documents/a.txt")) == "old")
        // No temporary file is left behind by the refused writes.
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path("Documents")).sorted() == ["Inbox", "a.txt"])

        FilesExpect.success(try workspace.files(["write", "Documents/a.txt", "--text", "new", "--overwrite"]), "overwrite")
        #expect(workspace.text(workspace.path("Documents/a.txt")) == "new")
    }

    @Test func writeCreatesMissingFoldersOnlyWithParents() throws {
        let workspace = try FilesWorkspace("write-parents")
        defer { workspace.remove() }
        let refused = try workspace.files(["write", "Documents/notes/2026/a.txt", "--text", "x"])
        FilesExpect.failure(refused, ["write 'notes/2026/a.txt' in Documents", "not found", "--parents"])
        #expect(workspace.kind(workspace.path("Documents/notes")) == nil)

        FilesExpect.success(try workspace.files(["write", "Documents/notes/2026/a.txt", "--text", "x", "--parents"]),
                            "write --parents")
        #expect(workspace.text(workspace.path("Documents/notes/2026/a.txt")) == "x")
        #expect(workspace.kind(workspace.path("Documents/notes/2026")) == S_IFDIR)

        // A missing source moved onto itself is the source's absence, not a missing folder.
        let onto = try workspace.files(["mv", "Documents/gone.txt", "Documents/gone.txt"])
        FilesExpect.failure(onto, ["move 'gone.txt' in Documents", "not found"])
        #expect(!onto.errorOutput.contains("--parents"), "\(onto.errorOutput)")
    }

    @Test func catStreamsAFileLargerThanTheMemoryItMayUse() throws {
        let workspace = try FilesWorkspace("cat-large")
        defer { workspace.remove() }
        FilesExpect.success(try workspace.files(["write", "Library/large.bin", "--text", ""]), "write")
        // 96 MiB, sparse but for marks on both sides of the first chunks' edges and at the end;
        // the command may use 32 MiB of data (`prlimit`): held whole, the file would not fit.
        let size = 96 << 20, marks = [(256 << 10) - 1, 256 << 10, (512 << 10) + 1, size - 1]
        let file = try #require(FileHandle(forWritingAtPath: workspace.path("Library/large.bin")))
        for (number, offset) in marks.enumerated() {
            try file.seek(toOffset: UInt64(offset))
            try file.write(contentsOf: [UInt8(number + 1)])
        }
        try file.close()
        let output = workspace.root.file("output.bin")
        FilesExpect.success(try workspace.filesRedirected(
            ["cat", "Library/large.bin", "--container", workspace.container], stdoutFile: output,
            through: ["prlimit", "--data=\(32 << 20)"]), "cat of a large file")
        let copy = try #require(FileHandle(forReadingAtPath: output))
        defer { try? copy.close() }
        #expect(try copy.seekToEnd() == UInt64(size))
        for (offset, byte) in zip(marks, 1...) + [(512 << 10, 0), (size - 2, 0)] {
            try copy.seek(toOffset: UInt64(offset))
            #expect(try copy.read(upToCount: 1).map(Array.init) == [UInt8(byte)], "the byte at \(offset)")
        }
    }

    @Test func catRefusesADirectoryAndAMissingFile() throws {
        let workspace = try FilesWorkspace("cat-refuse")
        defer { workspace.remove() }
        FilesExpect.success(try workspace.files(["write", "Documents/notes/a.txt", "--text", "a", "--parents"]), "write")
        FilesExpect.failure(try workspace.files(["cat", "Documents/notes"]), ["read 'notes' in Documents", "is a directory"])
        // Documents/Inbox is a standard directory of its own, not an entry of Documents.
        FilesExpect.failure(try workspace.files(["cat", "Documents/Inbox"]), ["'Documents/Inbox'", "standard directory"])
        FilesExpect.failure(try workspace.files(["cat", "tmp/missing"]), ["read 'missing' in tmp", "not found"])
        FilesExpect.failure(try workspace.files(["cat", "Library"]), ["'Library'", "standard directory"])
    }

    // MARK: ls

    @Test func lsOnAFreshContainerShowsTheFourDirectories() throws {
        let workspace = try FilesWorkspace("ls-fresh")
        defer { workspace.remove() }
        let human = try workspace.files(["ls"])
        FilesExpect.success(human, "ls")
        #expect(human.output.split(separator: "\n") == [
            "directory     Documents", "directory     Documents/Inbox", "directory     Library", "directory     tmp",
        ], "\(human.output)")
        // The container was created, private.
        for directory in ["", "/Documents", "/Documents/Inbox", "/Library", "/tmp"] {
            #expect(workspace.kind(workspace.container + directory) == S_IFDIR, "\(directory)")
            #expect(workspace.permissions(workspace.container + directory) == 0o700, "\(directory)")
        }

        let json = try workspace.files(["ls", "--json"])
        FilesExpect.success(json, "ls --json")
        let rows = try #require(try FilesExpect.json(json) as? [[String: Any]])
        #expect(rows.map { $0.string("name") } == ["Documents", "Documents/Inbox", "Library", "tmp"])
        #expect(rows.allSatisfy { $0.string("kind") == "directory" && $0["size"] == nil })

        let long = try workspace.files(["ls", "--long", "--json"])
        let longRows = try #require(try FilesExpect.json(long) as? [[String: Any]])
        #expect(longRows.allSatisfy { $0.string("permissions") == "0700" && $0.string("permissionsSymbolic") == "rwx------" },
                "\(long.output)")
    }

    @Test func lsListsEntriesSortedWithTheirKinds() throws {
        let workspace = try FilesWorkspace("ls-entries")
        defer { workspace.remove() }
        for (path, text) in [("Documents/b.txt", "bb"), ("Documents/a.txt", "a"), ("Documents/Z", ""), ("Documents/notes/x", "x")] {
            FilesExpect.success(try workspace.files(["write", path, "--text", text, "--parents"]), path)
        }
        try FileManager.default.createSymbolicLink(atPath: workspace.path("Documents/link"), withDestinationPath: "/")

        let human = try workspace.files(["ls", "Documents"])
        FilesExpect.success(human, "ls Documents")
        #expect(human.output.split(separator: "\n") == [
            "directory     Inbox", "file          Z", "file          a.txt", "file          b.txt",
            "symbolicLink  link", "directory     notes",
        ], "\(human.output)")
        // A trailing slash, as shells complete a directory, changes nothing.
        #expect(try workspace.files(["ls", "Documents/"]).output == human.output)

        let json = try workspace.files(["ls", "Documents", "--json"])
        FilesExpect.success(json, "ls --json")
        let rows = try #require(try FilesExpect.json(json) as? [[String: Any]])
        #expect(rows.map { $0.string("name") ?? "?" } == ["Inbox", "Z", "a.txt", "b.txt", "link", "notes"])
        #expect(rows.map { $0.string("kind") ?? "?" } == ["directory", "file", "file", "file", "symbolicLink", "directory"])
        #expect(rows.map { $0.string("path") ?? "?" }.first == "Documents/Inbox")

        let long = try workspace.files(["ls", "Documents", "--long", "--json"])
        let longRows = try #require(try FilesExpect.json(long) as? [[String: Any]])
        let b = try #require(longRows.first { $0.string("name") == "b.txt" })
        #expect(b.int("size") == 2)
        #expect(b.string("permissions") == String(format: "%04o", workspace.permissions(workspace.path("Documents/b.txt")) ?? 0))
        #expect(FilesExpect.isISO8601(b.string("modified") ?? ""), "\(b)")

        let longHuman = try workspace.files(["ls", "Documents", "-l"])
        FilesExpect.success(longHuman, "ls -l")
        let line = try #require(longHuman.output.split(separator: "\n").first { $0.hasSuffix(" b.txt") })
        #expect(line.hasPrefix("file          rw"), "\(line)")
        #expect(line.contains("         2  "), "size column: \(line)")

        let folder = try workspace.files(["ls", "Documents/notes"])
        #expect(folder.output == "file          x\n", "\(folder.output)")
        let empty = try workspace.files(["ls", "tmp", "--json"])
        #expect((try FilesExpect.json(empty) as? [Any])?.isEmpty == true)
        FilesExpect.failure(try workspace.files(["ls", "Documents/a.txt"]),
                            ["list contents 'a.txt' in Documents", "not a directory"])
    }

    // MARK: stat

    @Test func statDescribesAFile() throws {
        let workspace = try FilesWorkspace("stat")
        defer { workspace.remove() }
        FilesExpect.success(try workspace.files(["write", "Documents/a.txt", "--text", "hello"]), "write")
        let json = try workspace.files(["stat", "Documents/a.txt", "--json"])
        FilesExpect.success(json, "stat --json")
        let document = try #require(try FilesExpect.json(json) as? [String: Any])
        #expect(Set(document.keys) == ["path", "kind", "size", "permissions", "permissionsSymbolic", "ownerID",
                                       "ownerName", "modified", "created"])
        #expect(document.string("path") == "Documents/a.txt")
        #expect(document.string("kind") == "file")
        #expect(document.int("size") == 5)
        let mode = try #require(workspace.permissions(workspace.path("Documents/a.txt")))
        #expect(document.string("permissions") == String(format: "%04o", mode))
        #expect(document.int("ownerID") == Int(getuid()))
        let ownerName = getpwuid(getuid()).flatMap { $0.pointee.pw_name }.map { String(cString: $0) }
        #expect(document.string("ownerName") == ownerName)
        let modified = try #require(document.string("modified"))
        let modifiedDate = try Date.ISO8601FormatStyle().parse(modified)
        #expect(abs(modifiedDate.timeIntervalSinceNow) < 600, "\(modified)")
        // The creation date is present when the file system records it, else null: never a guess.
        let created = document["created"]
        #expect(created is NSNull || (created as? String).map(FilesExpect.isISO8601) == true, "\(String(describing: created))")

        let human = try workspace.files(["stat", "Documents/a.txt"])
        FilesExpect.success(human, "stat")
        let lines = human.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("Kind         file"), "\(human.output)")
        #expect(lines.contains("Size         5 bytes"), "\(human.output)")
        #expect(lines.contains("Modified     \(modified)"), "\(human.output)")
        let createdLine = try #require(lines.first { $0.hasPrefix("Created      ") })
        let createdText = String(createdLine.dropFirst("Created      ".count))
        #expect(createdText == ((created as? String) ?? "unknown"), "\(createdLine)")
        #expect(lines.contains("Owner        \(getuid()) (\(ownerName ?? "unknown"))"), "\(human.output)")
    }

    @Test func statShowsSpecialPermissionBitsAndFolders() throws {
        let workspace = try FilesWorkspace("stat-bits")
        defer { workspace.remove() }
        FilesExpect.success(try workspace.files(["write", "Library/tool", "--text", "#!", "--parents"]), "write")
        #expect(chmod(workspace.path("Library/tool"), 0o2751) == 0)
        let tool = try #require(try FilesExpect.json(try workspace.files(["stat", "Library/tool", "--json"])) as? [String: Any])
        #expect(tool.string("permissions") == "2751")
        #expect(tool.string("permissionsSymbolic") == "rwxr-s--x")
        #expect(try workspace.files(["stat", "Library/tool"]).output.contains("Permissions  2751 (rwxr-s--x)"))

        #expect(mkdir(workspace.path("tmp/shared"), 0o700) == 0 && chmod(workspace.path("tmp/shared"), 0o1777) == 0)
        let shared = try #require(try FilesExpect.json(try workspace.files(["stat", "tmp/shared", "--json"])) as? [String: Any])
        #expect(shared.string("kind") == "directory")
        #expect(shared.string("permissionsSymbolic") == "rwxrwxrwt")
        FilesExpect.failure(try workspace.files(["stat", "Documents/none"]), ["read attributes 'none' in Documents", "not found"])

        // A standard directory is described itself, with the slash a shell adds or without.
        for path in ["Documents/Inbox", "Library/"] {
            let folder = try #require(try FilesExpect.json(try workspace.files(["stat", path, "--json"])) as? [String: Any])
            #expect(folder.string("path") == (path == "Library/" ? "Library" : path) && folder.string("kind") == "directory"
                    && folder.string("permissions") == "0700", "\(folder)")
        }
    }

    // MARK: rm, mv, cp, ext

    @Test func rmRemovesFilesAndEmptyFoldersOnly() throws {
        let workspace = try FilesWorkspace("rm")
        defer { workspace.remove() }
        FilesExpect.success(try workspace.files(["write", "Documents/notes/a.txt", "--text", "a", "--parents"]), "write")
        FilesExpect.failure(try workspace.files(["rm", "Documents/notes"]), ["delete 'notes' in Documents", "directory not empty"])
        #expect(workspace.text(workspace.path("Documents/notes/a.txt")) == "a")

        FilesExpect.success(try workspace.files(["rm", "Documents/notes/a.txt"]), "rm file")
        #expect(workspace.kind(workspace.path("Documents/notes/a.txt")) == nil)
        FilesExpect.success(try workspace.files(["rm", "Documents/notes"]), "rm empty folder")
        #expect(workspace.kind(workspace.path("Documents/notes")) == nil)
        FilesExpect.failure(try workspace.files(["rm", "Documents/notes"]), ["delete 'notes' in Documents", "not found"])
    }

    @Test func mvMovesAcrossDirectories() throws {
        let workspace = try FilesWorkspace("mv")
        defer { workspace.remove() }
        FilesExpect.success(try workspace.files(["write", "Documents/a.txt", "--text", "A"]), "write")

        FilesExpect.failure(try workspace.files(["mv", "Documents/a.txt", "Library/archive/a.txt"]),
                            ["move 'archive/a.txt' in Library", "not found", "--parents"])
        #expect(workspace.text(workspace.path("Documents/a.txt")) == "A")

        FilesExpect.success(try workspace.files(["mv", "Documents/a.txt", "Library/archive/a.txt", "--parents"]), "mv")
        #expect(workspace.kind(workspace.path("Documents/a.txt")) == nil)
        #expect(workspace.text(workspace.path("Library/archive/a.txt")) == "A")

        // An existing destination is kept unless --overwrite.
        FilesExpect.success(try workspace.files(["write", "tmp/a.txt", "--text", "T"]), "write tmp")
        FilesExpect.failure(try workspace.files(["mv", "Library/archive/a.txt", "tmp/a.txt"]),
                            ["move 'a.txt' in tmp", "destination exists", "--overwrite"])
        #expect(workspace.text(workspace.path("tmp/a.txt")) == "T")
        #expect(workspace.text(workspace.path("Library/archive/a.txt")) == "A")
        FilesExpect.success(try workspace.files(["mv", "Library/archive/a.txt", "tmp/a.txt", "--overwrite"]), "mv --overwrite")
        #expect(workspace.text(workspace.path("tmp/a.txt")) == "A")
        #expect(workspace.kind(workspace.path("Library/archive/a.txt")) == nil)

        // A folder moves whole, into Documents/Inbox.
        FilesExpect.success(try workspace.files(["mv", "Library/archive", "Documents/Inbox/archive"]), "mv folder")
        #expect(workspace.kind(workspace.path("Documents/Inbox/archive")) == S_IFDIR)
        FilesExpect.failure(try workspace.files(["mv", "Library/none", "tmp/none"]), ["move 'none' in Library", "not found"])
    }

    @Test func cpCopiesAcrossDirectories() throws {
        let workspace = try FilesWorkspace("cp")
        defer { workspace.remove() }
        FilesExpect.success(try workspace.files(["write", "Library/prefs.json", "--text", #"{"a":1}"#]), "write")
        #expect(chmod(workspace.path("Library/prefs.json"), 0o600) == 0)

        FilesExpect.success(try workspace.files(["cp", "Library/prefs.json", "Documents/backup/prefs.json", "--parents"]), "cp")
        #expect(workspace.text(workspace.path("Library/prefs.json")) == #"{"a":1}"#)
        #expect(workspace.text(workspace.path("Documents/backup/prefs.json")) == #"{"a":1}"#)
        #expect(workspace.permissions(workspace.path("Documents/backup/prefs.json")) == 0o600)

        FilesExpect.success(try workspace.files(["write", "Library/prefs.json", "--text", "new", "--overwrite"]), "rewrite")
        FilesExpect.failure(try workspace.files(["cp", "Library/prefs.json", "Documents/backup/prefs.json"]),
                            ["copy 'backup/prefs.json' in Documents", "destination exists", "--overwrite"])
        #expect(workspace.text(workspace.path("Documents/backup/prefs.json")) == #"{"a":1}"#)
        FilesExpect.success(try workspace.files(["cp", "Library/prefs.json", "Documents/backup/prefs.json", "--overwrite"]),
                            "cp --overwrite")
        #expect(workspace.text(workspace.path("Documents/backup/prefs.json")) == "new")
        FilesExpect.failure(try workspace.files(["cp", "Documents/backup", "tmp/backup"]),
                            ["copy 'backup' in Documents", "is a directory"])
    }

    @Test func extChangesTheLastExtensionOnly() throws {
        let workspace = try FilesWorkspace("ext")
        defer { workspace.remove() }
        for path in ["Documents/archive.tar.gz", "Library/.profile", "Documents/notes/readme", "Documents/archive.tar.zip"] {
            FilesExpect.success(try workspace.files(["write", path, "--text", path, "--parents"]), path)
        }
        let tar = try workspace.files(["ext", "Documents/archive.tar.gz", "md"])
        FilesExpect.success(tar, "ext")
        #expect(tar.output == "Documents/archive.tar.md\n")
        #expect(workspace.text(workspace.path("Documents/archive.tar.md")) == "Documents/archive.tar.gz")
        #expect(workspace.kind(workspace.path("Documents/archive.tar.gz")) == nil)

        // A leading dot starts a hidden name, not an extension: one is added.
        let profile = try workspace.files(["ext", "Library/.profile", "bak"])
        #expect(profile.output == "Library/.profile.bak\n", "\(profile.errorOutput)")
        #expect(workspace.text(workspace.path("Library/.profile.bak")) == "Library/.profile")

        // One leading dot of the new extension is ignored.
        #expect(try workspace.files(["ext", "Documents/notes/readme", ".txt"]).output == "Documents/notes/readme.txt\n")

        // An existing file with the new name is kept unless --overwrite.
        FilesExpect.failure(try workspace.files(["ext", "Documents/archive.tar.md", "zip"]),
                            ["change extension 'archive.tar.zip' in Documents", "destination exists", "--overwrite"])
        #expect(workspace.text(workspace.path("Documents/archive.tar.zip")) == "Documents/archive.tar.zip")
        #expect(workspace.text(workspace.path("Documents/archive.tar.md")) == "Documents/archive.tar.gz")
        #expect(try workspace.files(["ext", "Documents/archive.tar.md", "zip", "--overwrite"]).output
                    == "Documents/archive.tar.zip\n")
        #expect(workspace.text(workspace.path("Documents/archive.tar.zip")) == "Documents/archive.tar.gz")
        #expect(workspace.kind(workspace.path("Documents/archive.tar.md")) == nil)

        // An empty extension removes it.
        #expect(try workspace.files(["ext", "Documents/archive.tar.zip", ""]).output == "Documents/archive.tar\n")
        #expect(workspace.text(workspace.path("Documents/archive.tar")) == "Documents/archive.tar.gz")
        FilesExpect.failure(try workspace.files(["ext", "Documents/notes/readme.txt", "a.b"]), ["invalid name", "contains '.'"])
        // An extension that stays invalid without its leading dot is refused as it was given.
        for given in ["..", "..md"] {
            FilesExpect.failure(try workspace.files(["ext", "Documents/notes/readme.txt", given]),
                                ["change extension '\(given)' in Documents", "invalid name"])
        }
        #expect(workspace.text(workspace.path("Documents/notes/readme.txt")) == "Documents/notes/readme")
    }

    // MARK: confinement

    /// An operation on a path that would leave the container.
    struct EscapeCase: Sendable, CustomTestStringConvertible {
        /// The command line; OUT is replaced by the escaping path, ROOT by the workspace folder.
        let arguments: [String]
        /// The escaping path, as typed; ROOT is replaced by the workspace folder.
        let path: String
        /// How the error names it, and the cause it gives.
        let words: [String]
        var testDescription: String { arguments.joined(separator: " ").replacingOccurrences(of: "OUT", with: path) }
    }

    /// The ways out: "..", an absolute path, a directory that is not one of the four,
    /// and a folder that is a symbolic link to the workspace folder (outside the container).
    static let escapes: [(path: String, words: [String])] = [
        ("Documents/../../outside.txt", ["'Documents/../../outside.txt'", "name would escape the container"]),
        ("ROOT/outside.txt", ["'ROOT/outside.txt'", "name would escape the container"]),
        ("Desktop/outside.txt", ["'Desktop/outside.txt'", "does not start with Documents, Documents/Inbox, Library or tmp"]),
        ("Documents/link/outside.txt", ["'link/outside.txt' in Documents", "symbolic link, which is never followed"]),
    ]

    static let operations: [[String]] = [
        ["cat", "OUT"],
        ["write", "OUT", "--text", "changed", "--overwrite"],
        ["write", "OUT", "--text", "changed", "--overwrite", "--parents"],
        ["rm", "OUT"],
        ["stat", "OUT"],
        ["ls", "OUT"],
        ["ext", "OUT", "md", "--overwrite"],
        ["cp", "OUT", "Documents/copy.txt"],
        ["cp", "Documents/seed.txt", "OUT", "--overwrite", "--parents"],
        ["mv", "OUT", "Documents/moved.txt"],
        ["mv", "Documents/seed.txt", "OUT", "--overwrite", "--parents"],
    ]

    static let escapeCases = escapes.flatMap { escape in
        operations.map { EscapeCase(arguments: $0, path: escape.path, words: escape.words) }
    }

    @Test(arguments: escapeCases)
    func pathsThatLeaveTheContainerAreRefused(_ escape: EscapeCase) throws {
        let workspace = try FilesWorkspace("escape")
        defer { workspace.remove() }
        let outside = workspace.root.file("outside.txt")
        try workspace.root.write("outside.txt", "secret")
        FilesExpect.success(try workspace.files(["write", "Documents/seed.txt", "--text", "seed"]), "seed")
        try FileManager.default.createSymbolicLink(atPath: workspace.path("Documents/link"), withDestinationPath: workspace.root.path)
        let before = try FileManager.default.contentsOfDirectory(atPath: workspace.root.path).sorted()

        let path = escape.path.replacingOccurrences(of: "ROOT", with: workspace.root.path)
        let result = try workspace.files(escape.arguments.map { $0 == "OUT" ? path : $0 })
        FilesExpect.failure(result, escape.words.map { $0.replacingOccurrences(of: "ROOT", with: workspace.root.path) })

        #expect(workspace.text(outside) == "secret")
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.root.path).sorted() == before)
        #expect(workspace.text(workspace.path("Documents/seed.txt")) == "seed")
        #expect(workspace.kind(workspace.path("Documents/link")) == S_IFLNK)
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path("Documents")).sorted()
                    == ["Inbox", "link", "seed.txt"])
    }

    // MARK: limits

    /// A path past the facade's limits, in one operation.
    struct LimitCase: Sendable, CustomTestStringConvertible {
        /// The command line; OUT is replaced by the path.
        let arguments: [String]
        let path: String
        /// The cause the one-line error gives.
        let words: [String]
        var testDescription: String {
            arguments.joined(separator: " ").replacingOccurrences(of: "OUT", with: String(reflecting: String(path.prefix(40))))
        }
    }

    /// Control characters (shown escaped in the error), and paths too deep or too long.
    static let pastTheLimits: [(path: String, words: [String])] = [
        ("tmp/a\u{1B}]0;title\u{7}.txt", [#"'tmp/a\x1b]0;title\x07.txt'"#, "contains the control character U+001B"]),
        ("Documents/line\nbreak.txt", ["contains the control character U+000A"]),
        ("tmp/" + String(repeating: "d/", count: 200) + "x", ["the container path is 201 folders deep; the limit is 128"]),
        ("Library/" + Array(repeating: String(repeating: "n", count: 250), count: 17).joined(separator: "/"),
         ["(4274 bytes)", "the container path is 4274 bytes long; the limit is 4095"]),
    ]

    static let limitOperations: [[String]] = [
        ["write", "OUT", "--text", "x", "--parents"],
        ["mv", "Documents/seed.txt", "OUT", "--parents"],
        ["ls", "OUT"],
    ]

    static let limitCases = pastTheLimits.flatMap { limit in
        limitOperations.map { LimitCase(arguments: $0, path: limit.path, words: limit.words) }
    }

    @Test(arguments: limitCases)
    func pathsPastTheLimitsAreRefusedBeforeAnythingIsMade(_ limit: LimitCase) throws {
        let workspace = try FilesWorkspace("limits")
        defer { workspace.remove() }
        FilesExpect.success(try workspace.files(["write", "Documents/seed.txt", "--text", "seed"]), "seed")

        let result = try workspace.files(limit.arguments.map { $0 == "OUT" ? limit.path : $0 })
        FilesExpect.failure(result, ["invalid name"] + limit.words)

        #expect(workspace.text(workspace.path("Documents/seed.txt")) == "seed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path("Documents")).sorted() == ["Inbox", "seed.txt"])
        for directory in ["Documents/Inbox", "Library", "tmp"] {
            #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path(directory)).isEmpty, "\(directory)")
        }
    }

    @Test func anExtensionWithAControlCharacterIsRefused() throws {
        let workspace = try FilesWorkspace("limits-ext")
        defer { workspace.remove() }
        FilesExpect.success(try workspace.files(["write", "Documents/seed.txt", "--text", "seed"]), "seed")
        FilesExpect.failure(try workspace.files(["ext", "Documents/seed.txt", "t\u{7F}"]),
                            ["change extension", "invalid name: contains the control character U+007F"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path("Documents")).sorted() == ["Inbox", "seed.txt"])
    }

    /// A symbolic link as the last component is an entry: described, removed or replaced
    /// itself, never read or written through.
    @Test func aFinalSymbolicLinkIsActedOnNeverFollowed() throws {
        let workspace = try FilesWorkspace("final-link")
        defer { workspace.remove() }
        let outside = workspace.root.file("outside.txt")
        try workspace.root.write("outside.txt", "secret")
        FilesExpect.success(try workspace.files(["ls"]), "create the container")
        let link = workspace.path("Documents/link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside)

        FilesExpect.failure(try workspace.files(["cat", "Documents/link"]), ["read 'link' in Documents", "symbolic link"])
        FilesExpect.failure(try workspace.files(["cp", "Documents/link", "Documents/copy"]), ["copy 'link' in Documents", "symbolic link"])
        FilesExpect.failure(try workspace.files(["write", "Documents/link", "--text", "x"]), ["destination exists"])
        let stat = try #require(try FilesExpect.json(try workspace.files(["stat", "Documents/link", "--json"])) as? [String: Any])
        #expect(stat.string("kind") == "symbolicLink")
        #expect(stat.int("size") == outside.utf8.count)
        #expect(try workspace.files(["ls", "Documents"]).output.contains("symbolicLink  link\n"))

        // --overwrite replaces the link itself with a file.
        FilesExpect.success(try workspace.files(["write", "Documents/link", "--text", "mine", "--overwrite"]), "overwrite link")
        #expect(workspace.kind(link) == S_IFREG)
        #expect(workspace.text(link) == "mine")
        #expect(workspace.text(outside) == "secret")

        // rm removes a link, not its target.
        #expect(unlink(link) == 0)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside)
        FilesExpect.success(try workspace.files(["rm", "Documents/link"]), "rm link")
        #expect(workspace.kind(link) == nil)
        #expect(workspace.text(outside) == "secret")
    }

    // MARK: the container

    @Test func appNamePicksTheContainerUnderXDGDataHome() throws {
        let workspace = try FilesWorkspace("app-name")
        defer { workspace.remove() }
        let data = workspace.root.file("data"), home = workspace.root.file("home")
        let environment = ["XDG_DATA_HOME": data, "HOME": home]
        FilesExpect.success(try workspace.filesRedirected(
            ["write", "Documents/hello.txt", "--text", "hi", "--app-name", "notes"], environment: environment), "write")
        #expect(workspace.text(data + "/plugboard/notes/Documents/hello.txt") == "hi")
        #expect(workspace.permissions(data + "/plugboard/notes") == 0o700)
        let cat = try workspace.filesRedirected(["cat", "Documents/hello.txt", "--app-name", "notes"], environment: environment)
        #expect(cat.output == "hi")

        // Without --app-name: the default app's container.
        FilesExpect.success(try workspace.filesRedirected(["ls"], environment: environment), "ls")
        #expect(workspace.kind(data + "/plugboard/plugboard-app/Library") == S_IFDIR)
        #expect(workspace.kind(home) == nil, "HOME was used although XDG_DATA_HOME is set")
    }

    // MARK: usage

    /// A usage error: the arguments after `plugboard files` (CONTAINER is the test's
    /// container), and words its message must contain.
    struct UsageCase: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let words: [String]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let usageCases: [UsageCase] = [
        UsageCase(arguments: ["ls", "--bogus", "--container", "CONTAINER"], words: ["Unknown option", "--bogus"]),
        UsageCase(arguments: ["cat", "--container", "CONTAINER"], words: ["Missing expected argument", "<path>"]),
        UsageCase(arguments: ["write", "--container", "CONTAINER"], words: ["Missing expected argument", "<path>"]),
        UsageCase(arguments: ["mv", "Documents/a", "--container", "CONTAINER"], words: ["Missing expected argument", "<to>"]),
        UsageCase(arguments: ["cp", "Documents/a", "--container", "CONTAINER"], words: ["Missing expected argument", "<to>"]),
        UsageCase(arguments: ["ext", "Documents/a", "--container", "CONTAINER"], words: ["Missing expected argument", "<new-extension>"]),
        UsageCase(arguments: ["rm", "a", "b", "--container", "CONTAINER"], words: ["Unexpected argument", "b"]),
        UsageCase(arguments: ["write", "Documents/a", "--text", "--container", "CONTAINER"], words: ["--text"]),
        UsageCase(arguments: ["chmod", "Documents/a"], words: ["chmod"]),
        UsageCase(arguments: ["ls", "--app-name", "a/b"], words: ["--app-name 'a/b' cannot name the container's folder", "contains '/'"]),
        UsageCase(arguments: ["ls", "--app-name", "notes", "--container", "/nonexistent"], words: ["give --container or --app-name, not both"]),
        UsageCase(arguments: ["ls", "--app-name", ".."], words: ["--app-name '..' cannot name the container's folder", "escape"]),
        UsageCase(arguments: ["ls", "--app-name", "app\u{1B}"], words: [#"--app-name 'app\x1b' cannot name the container's folder"#,
                                                                          "contains the control character U+001B"]),
        UsageCase(arguments: ["ls", "--container", ""], words: ["--container needs a directory path"]),
    ]

    /// Run in a folder of their own: an empty --container must not be taken for it.
    @Test(arguments: usageCases)
    func usageErrorsExit64(_ usage: UsageCase) throws {
        let workspace = try FilesWorkspace("usage")
        defer { workspace.remove() }
        let folder = workspace.root.file("cwd")
        #expect(mkdir(folder, 0o755) == 0)
        let environment = ["XDG_DATA_HOME": workspace.root.file("data"), "HOME": workspace.root.file("home")]
        let arguments = usage.arguments.map { $0 == "CONTAINER" ? workspace.container : $0 }
        let result = try workspace.filesRedirected(arguments, directory: folder, environment: environment)
        #expect(result.status == 64, "exit \(result.status)\n\(result.output)\n\(result.errorOutput)")
        for word in usage.words {
            #expect(result.errorOutput.contains(word), "stderr lacks \(String(reflecting: word)):\n\(result.errorOutput)")
        }
        // Nothing was created: no container, no default container, nothing in the working folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.root.path) == ["cwd"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        #expect(workspace.permissions(folder) == 0o755)
    }

    @Test(arguments: ["ls", "cat", "write", "rm", "mv", "cp", "stat", "ext"])
    func helpShowsExamplesAndExitCodes(_ subcommand: String) throws {
        let help = try CLI.run(["files", subcommand, "--help"])
        #expect(help.status == 0, "\(help.errorOutput)")
        #expect(help.output.contains("Examples:\n  plugboard files \(subcommand)"), "\(help.output)")
        #expect(help.output.contains("Exit codes: 0 success; 1 the operation failed"), "\(help.output)")
        #expect(help.output.contains("64 usage"), "\(help.output)")
        #expect(help.output.contains("--container <dir>") && help.output.contains("--app-name <name>"), "\(help.output)")
        #expect(help.output.contains("--json") == ["ls", "stat"].contains(subcommand), "\(help.output)")
    }

    @Test func filesIsListedAndHasItsOwnHelp() throws {
        let top = try CLI.run(["--help"])
        #expect(top.output.contains("  files "), "\(top.output)")
        let files = try CLI.run(["files", "--help"])
        #expect(files.status == 0)
        for subcommand in ["ls", "cat", "write", "rm", "mv", "cp", "stat", "ext"] {
            #expect(files.output.contains("\n  \(subcommand) "), "\(subcommand) missing:\n\(files.output)")
        }
        #expect(files.output.contains("Exit codes: 0 success"), "\(files.output)")
    }
}
