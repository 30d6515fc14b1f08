import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Glibc
import Synchronization
import Testing

/// `plugboard run --trace-file` and `--svg`, and `plugboard blame`: a picture of a run
/// from real plugins and the real binary, in both isolation modes.
@Suite struct RunPictureTests {
    /// Every plugin of a run with `GoodPlugins`: the two good ones and the built-in files plugin.
    private static let allIDs = GoodPlugins.ids + ["org.plugboard.files"]

    /// Runs `plugboard run` over `workspace` with a URL, writing `trace.json` and `launch.svg` into it.
    private static func run(_ workspace: Workspace, isolation: String) throws -> ProcessResult {
        try CLI.run(["run", "--isolation", isolation, "--plugin-dir", workspace.plugins,
                     "--container", workspace.root.file("container"), "--open-url", "myapp://x",
                     "--trace-file", workspace.root.file("trace.json"), "--svg", workspace.root.file("launch.svg")])
    }

    /// The trace events of the trace file at `path`.
    private static func traceEvents(at path: String) throws -> [[String: Any]] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(document.string("displayTimeUnit") == "ms")
        return try #require(document.objects("traceEvents"))
    }

    @Test(arguments: ["process", "none"])
    func theTraceHasALoadPerLibraryAnEventSpanPerEventAndNestedCalls(isolation: String) throws {
        let workspace = try Workspace("trace-\(isolation)")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let result = try Self.run(workspace, isolation: isolation)
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let events = try Self.traceEvents(at: workspace.root.file("trace.json"))
        func number(_ event: [String: Any], _ key: String) -> Double { (event[key] as? NSNumber)?.doubleValue ?? -1 }
        func args(_ event: [String: Any]) -> [String: String] { event["args"] as? [String: String] ?? [:] }

        let loads = events.filter { $0.string("cat") == "load" && args($0)["library"] != nil }
        #expect(loads.compactMap { args($0)["library"].map { URL(fileURLWithPath: $0).lastPathComponent } }
                == [GoodPlugins.firstFile, GoodPlugins.lastFile])
        #expect(loads.map { args($0)["plugins"] } == [GoodPlugins.firstID, GoodPlugins.lastID])

        let eventSpans = events.filter { $0.string("cat") == "event" }
        #expect(eventSpans.map { $0.string("name") }
                == ["will-finish-launching", "did-finish-launching", "open-url", "will-terminate"])
        #expect(eventSpans.allSatisfy { $0.string("ph") == "X" && number($0, "dur") >= 0 && number($0, "ts") >= 0 })
        let calls = events.filter { $0.string("cat") == "call" }
        for span in eventSpans where span.string("name") != "open-url" {
            let name = try #require(span.string("name"))
            let inEvent = calls.filter { args($0)["event"] == name }
            #expect(Set(inEvent.compactMap { args($0)["plugin"] }).isSuperset(of: GoodPlugins.ids), "\(name)")
            for call in inEvent {
                #expect(number(call, "dur") >= 0)
                #expect(number(call, "ts") >= number(span, "ts"))
                #expect(number(call, "ts") + number(call, "dur") <= number(span, "ts") + number(span, "dur") + 0.001,
                        "\(call) outside \(span)")
            }
        }
        let lanes = events.filter { $0.string("ph") == "M" }.compactMap { args($0)["name"] }
        #expect(Set(lanes).isSuperset(of: GoodPlugins.ids.map { "plugin " + $0 } + ["events"]))
    }

    @Test(arguments: ["process", "none"])
    func theSVGIsWellFormedAndShowsEveryPlugin(isolation: String) throws {
        let workspace = try Workspace("svg-\(isolation)")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        // A path is plugin-controlled text: XML's special characters must be escaped.
        let hostile = try PluginCompiler.hostile("x<y&\"z'.so", in: workspace.plugins, [])
        let result = try Self.run(workspace, isolation: isolation)
        #expect(result.status == 0, "\(result.output)\n\(result.errorOutput)")
        let text = try XMLText.of(file: workspace.root.file("launch.svg"))
        for id in Self.allIDs + ["com.example.hostile"] {
            #expect(text.contains(id), "\(id) missing from the SVG")
        }
        #expect(text.contains(hostile))
        #expect(text.contains("ms"))
    }

    @Test func aWorkerCrashIsAnInstantOnItsPluginsLane() throws {
        let workspace = try Workspace("trace-crash")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["SEGV_AT=AT_OPEN_URL"])
        let result = try Self.run(workspace, isolation: "process")
        #expect(result.status == 5, "\(result.output)\n\(result.errorOutput)")
        let events = try Self.traceEvents(at: workspace.root.file("trace.json"))
        let crashes = events.filter { $0.string("ph") == "i" && $0.string("cat") == "worker" }
        let args = crashes.compactMap { $0["args"] as? [String: String] }
        #expect(args.map { $0["plugin"] } == ["com.example.hostile"])
        #expect(args.first?["event"] == "open-url")
        #expect(args.first?["message"]?.contains("crashed with SIGSEGV in open_url") == true, "\(crashes)")
    }

    @Test func aWorkerCrashWhileLoadingIsAnInstantOnItsLibrarysLane() throws {
        let workspace = try Workspace("trace-load-crash")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let library = try PluginCompiler.hostile("libhostile.so", in: workspace.plugins, ["SEGV_AT=AT_INIT"])
        let result = try Self.run(workspace, isolation: "process")
        #expect(result.status == 4, "\(result.output)\n\(result.errorOutput)")
        let events = try Self.traceEvents(at: workspace.root.file("trace.json"))
        let crashes = events.filter { $0.string("ph") == "i" && $0.string("cat") == "worker" }
        let args = crashes.compactMap { $0["args"] as? [String: String] }
        #expect(args.map { $0["library"] } == [library])
        #expect(args.first?["message"]?.contains("crashed with SIGSEGV in init") == true, "\(crashes)")
        let loads = events.filter { $0.string("cat") == "load" && ($0["args"] as? [String: String])?["library"] == library }
        #expect(loads.count == 1 && (loads.first?["args"] as? [String: String])?["status"] == "failed")
    }

    @Test func blameListsEveryPluginSlowestFirst() throws {
        let workspace = try Workspace("blame")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        #expect(try Self.run(workspace, isolation: "process").status == 0)
        let trace = workspace.root.file("trace.json")

        let json = try CLI.run(["blame", trace, "--json"])
        #expect(json.status == 0, "\(json.errorOutput)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(Set(entries.compactMap { $0.string("plugin") }) == Set(Self.allIDs))
        let totals = entries.compactMap { ($0["totalMicroseconds"] as? NSNumber)?.doubleValue }
        #expect(totals.count == entries.count && totals == totals.sorted(by: >))
        for entry in entries {
            let load = try #require((entry["loadMicroseconds"] as? NSNumber)?.doubleValue)
            let launch = try #require((entry["launchMicroseconds"] as? NSNumber)?.doubleValue)
            #expect(load >= 0 && launch > 0 && abs(load + launch - ((entry["totalMicroseconds"] as? NSNumber)?.doubleValue ?? -1)) < 0.01)
            let library = entry.string("library")
            #expect((library == nil) == (entry.string("plugin") == "org.plugboard.files"), "\(entry)")
            #expect(entry.keys.contains("library"), "a built-in plugin's library is null, not absent: \(entry)")
            #expect(entry.string("plugin") == "org.plugboard.files" || load > 0, "\(entry)")
        }

        let human = try CLI.run(["blame", trace])
        #expect(human.status == 0)
        let order = human.output.split(separator: "\n").map { $0.split(separator: " ").dropFirst().first.map(String.init) }
        #expect(order == entries.map { $0.string("plugin") }, "\(human.output)")
        #expect(human.output.split(separator: "\n").contains { $0.contains(" org.plugboard.files (no load, launch ") && $0.hasSuffix(") built in") },
                "\(human.output)")
    }

    @Test func blameNamesAnUnreadableOrForeignFile() throws {
        let workspace = try Workspace("blame-bad")
        defer { workspace.remove() }
        let missing = try CLI.run(["blame", workspace.root.file("none.json")])
        #expect(missing.status == 1)
        #expect(missing.errorOutput.contains("cannot read the trace file '\(workspace.root.file("none.json"))': No such file or directory"))
        try workspace.root.write("foreign.json", "{\"not\":\"a trace\"}")
        let foreign = try CLI.run(["blame", workspace.root.file("foreign.json")])
        #expect(foreign.status == 1)
        #expect(foreign.errorOutput.contains("is not a trace written by plugboard run --trace-file: the key \"traceEvents\" is missing"),
                "\(foreign.errorOutput)")
        // Text that is not JSON is named where it stops being JSON.
        try workspace.root.write("text.json", "{\"traceEvents\": [\n  oops]}")
        let text = try CLI.run(["blame", workspace.root.file("text.json")])
        #expect(text.status == 1 && text.errorOutput.contains("is not a trace written by plugboard run --trace-file: line 2, column 3: "),
                "\(text.errorOutput)")
        // What is wrong is said where it is: the key path in the trace.
        try workspace.root.write("wrong.json", #"{"traceEvents": [{"name": 1}]}"#)
        let wrong = try CLI.run(["blame", workspace.root.file("wrong.json")])
        #expect(wrong.status == 1 && wrong.errorOutput.contains("at traceEvents[0].name: Expected to decode String but found number"),
                "\(wrong.errorOutput)")
        // Times no run has (their sum would be infinite, which no JSON number says) are refused, named.
        let span = #"{"name": "com.example.x will-finish-launching", "cat": "call", "ph": "X", "ts": 0, "dur": 1e308, "pid": 1, "tid": 2, "#
            + #""args": {"plugin": "com.example.x", "event": "will-finish-launching"}}"#
        try workspace.root.write("huge.json", #"{"displayTimeUnit": "ms", "traceEvents": ["# + span + ", " + span + "]}")
        for arguments in [["blame", workspace.root.file("huge.json")], ["blame", workspace.root.file("huge.json"), "--json"]] {
            let huge = try CLI.run(arguments)
            #expect(huge.status == 1 && huge.errorOutput.contains("traceEvents[0].dur is not a number of microseconds from 0 to"),
                    "\(huge.output)\(huge.errorOutput)")
        }
        // A device is refused unread (a pipe is read, up to the longest trace).
        let endless = try CLI.run(["blame", "/dev/zero"])
        #expect(endless.status == 1)
        #expect(endless.errorOutput.contains("cannot read the trace file '/dev/zero': it is a device, not a file"), "\(endless.errorOutput)")
    }

    @Test(arguments: ["process", "none"])
    func anUnwritableTraceFileIsNamedAndNothingIsHalfWritten(isolation: String) throws {
        let workspace = try Workspace("trace-unwritable-\(isolation)")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let missing = workspace.root.file("missing/trace.json")
        let result = try CLI.run(["run", "--isolation", isolation, "--plugin-dir", workspace.plugins,
                                  "--container", workspace.root.file("container"), "--trace-file", missing])
        // A folder that does not exist is a usage error before anything runs.
        #expect(result.status == 64, "\(result.output)\(result.errorOutput)")
        #expect(result.errorOutput.contains("--trace-file '\(missing)': the folder '\(workspace.root.file("missing"))' does not exist"),
                "\(result.errorOutput)")
        #expect(!result.output.contains("will-finish-launching"), "\(result.output)")
        // A directory in the file's place: refused before anything runs too, and nothing is left beside it.
        let occupied = workspace.root.file("occupied")
        try FileManager.default.createDirectory(atPath: occupied + "/inside", withIntermediateDirectories: true)
        let blocked = try CLI.run(["run", "--isolation", isolation, "--plugin-dir", workspace.plugins,
                                   "--container", workspace.root.file("container"), "--svg", occupied])
        #expect(blocked.status == 64)
        #expect(blocked.errorOutput.contains("--svg '\(occupied)' is a folder; it takes a file's path"), "\(blocked.errorOutput)")
        #expect(!blocked.output.contains("will-finish-launching"), "\(blocked.output)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: workspace.root.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// A FIFO, a device or a symbolic link given as the file is written through, never replaced: a
    /// FIFO's reader gets the trace and it stays a FIFO, a full device fails the run with its cause
    /// and stays a device (as root, renaming over `/dev/full` had put a regular file in its place),
    /// and a link keeps pointing at the file, which gets the picture.
    @Test func aSpecialFileIsWrittenThroughNotReplaced() throws {
        let workspace = try Workspace("trace-special")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let run = { (option: String, path: String) in
            try CLI.run(["run", "--isolation", "none", "--plugin-dir", workspace.plugins,
                         "--container", workspace.root.file("container"), option, path])
        }
        let fifo = workspace.root.file("trace.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The reader opens the FIFO (waiting for the writer) and reads it to its end.
        let received = Mutex(Data())
        let reader = Thread {
            let descriptor = open(fifo, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while case let count = read(descriptor, &chunk, chunk.count), count > 0 {
                received.withLock { $0.append(contentsOf: chunk[..<count]) }
            }
        }
        reader.start()
        let traced = try run("--trace-file", fifo)
        #expect(traced.status == 0, "\(traced.output)")
        let deadline = ContinuousClock.now + .seconds(10)
        while received.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline { usleep(10_000) }
        #expect(String(decoding: received.withLock { $0 }, as: UTF8.self).hasPrefix("{\"displayTimeUnit\""))
        #expect(Self.kind(of: fifo) == S_IFIFO)

        // A node of /dev/full's device, 1:7 (needs root; skipped without it).
        let full = workspace.root.file("full")
        if mknod(full, S_IFCHR | 0o600, dev_t(1 << 8 | 7)) == 0 {
            let refused = try run("--svg", full)
            #expect(refused.status == 74)
            #expect(refused.output.contains("cannot write the SVG file '\(full)': No space left on device"), "\(refused.output)")
            #expect(Self.kind(of: full) == S_IFCHR)
        }

        let picture = workspace.root.file("picture.svg"), link = workspace.root.file("link.svg")
        try workspace.root.write("picture.svg", "old")
        #expect(symlink(picture, link) == 0)
        let drawn = try run("--svg", link)
        #expect(drawn.status == 0, "\(drawn.output)")
        #expect((try? String(contentsOfFile: picture, encoding: .utf8))?.contains("<svg ") == true)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == picture)
    }

    /// A FIFO that no process reads fails the run at its end with that cause, at once: opening it
    /// for writing would wait for a reader for ever.
    @Test func aFIFOWithNoReaderFailsTheRunAtOnce() throws {
        let workspace = try Workspace("trace-fifo-unread")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let fifo = workspace.root.file("trace.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let host = try LiveProcess(CLI.binary(), ["run", "--isolation", "none", "--plugin-dir", workspace.plugins,
                                                  "--container", workspace.root.file("container"), "--trace-file", fifo])
        defer { host.stop() }
        let (ending, output, timedOut) = host.waitForExit(timeout: .seconds(30))
        #expect(!timedOut && ending == .exit(74), "\(output)")
        #expect(output.contains("cannot write the trace file '\(fifo)': no process reads the named pipe"), "\(output)")
        #expect(Self.kind(of: fifo) == S_IFIFO)
    }

    @Test func aPictureOnStandardOutputGoesThereBeforeTheExitLine() throws {
        let workspace = try Workspace("svg-stdout")
        defer { workspace.remove() }
        try GoodPlugins.build(in: workspace.plugins)
        let drawn = try CLI.run(["run", "--isolation", "none", "--plugin-dir", workspace.plugins,
                                 "--container", workspace.root.file("container"), "--json", "--svg", "/dev/stdout"])
        #expect(drawn.status == 0, "\(drawn.errorOutput)")
        let svg = try #require(drawn.output.range(of: "<svg "), "\(drawn.output)")
        let end = try #require(drawn.output.range(of: "</svg>\n"))
        #expect(drawn.output[..<svg.lowerBound].contains("\"type\":\"event\""), "the report first")
        #expect(drawn.output[end.upperBound...] == "{\"code\":0,\"type\":\"exit\"}\n", "then the exit line")
        #expect(!drawn.errorOutput.contains("<svg"))
    }

    /// The file type bits of `path`'s `lstat`.
    private static func kind(of path: String) -> mode_t {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : 0
    }
}

/// The character data of an XML file, parsed with XMLParser; an issue is recorded
/// when the file is not well-formed.
private final class XMLText: NSObject, XMLParserDelegate {
    private var text = ""

    static func of(file path: String) throws -> String {
        let parser = try #require(XMLParser(contentsOf: URL(fileURLWithPath: path)))
        let collector = XMLText()
        parser.delegate = collector
        #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
        return collector.text
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }
}
