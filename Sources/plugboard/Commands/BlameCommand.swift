import ArgumentParser
import Foundation
import Glibc
import Plugboard
import PlugboardSystem
import SystemPackage

/// `plugboard blame`: the slowest plugins of a past run, read from its trace file.
struct BlameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blame",
        abstract: "Print the plugins of a run, slowest first: load and launch time (like systemd-analyze blame).",
        discussion: """
            Reads a trace written by `plugboard run --trace-file FILE`, so it works on any past \
            run. Per plugin: load (its library's load: trust rule, dlopen or worker load, init, \
            register; plugins of one library share it), launch (its will-finish-launching and \
            did-finish-launching calls) and their total, sorted by total, slowest first. A plugin \
            built into the host has no load. --json prints one array of {"plugin", "library", \
            "loadMicroseconds", "launchMicroseconds", "totalMicroseconds"}.

            Exit codes: 0 success; 1 the trace file could not be read (or is longer than 1 GiB) \
            or is not a trace; \
            64 usage error; 74 the report could not be written to standard output.
            """)

    @Argument(help: ArgumentHelp("A trace file written by run --trace-file.", valueName: "trace-file"),
              transform: WorkingDirectory.absolute)
    var traceFile: String

    @OptionGroup var output: OutputOptions

    /// One plugin's line of `blame --json`; a built-in plugin's `library` is null.
    struct Entry: Encodable {
        let plugin: String
        let library: String?
        let loadMicroseconds: Double
        let launchMicroseconds: Double
        let totalMicroseconds: Double

        private enum CodingKeys: String, CodingKey {
            case plugin, library, loadMicroseconds, launchMicroseconds, totalMicroseconds
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(plugin, forKey: .plugin)
            try container.encode(library, forKey: .library)
            try container.encode(loadMicroseconds, forKey: .loadMicroseconds)
            try container.encode(launchMicroseconds, forKey: .launchMicroseconds)
            try container.encode(totalMicroseconds, forKey: .totalMicroseconds)
        }
    }

    func run() throws {
        let console = Console.takeStandardOutput()
        let data: Data
        do {
            data = try contents()
        } catch {
            throw fail("cannot read the trace file \(quoted: traceFile): \(error)")
        }
        let trace: ChromeTrace
        do {
            // The strict check first: its error names the line and column where the text stops being JSON.
            try JSONSyntax.check(data)
            trace = try JSONDecoder().decode(ChromeTrace.self, from: data)
        } catch {
            throw fail("\(quoted: traceFile) is not a trace written by plugboard run --trace-file: \(Self.explain(error))")
        }
        if let (index, field) = Self.timeOutOfRange(in: trace) {
            throw fail("\(quoted: traceFile) is not a trace written by plugboard run --trace-file: traceEvents[\(index)].\(field) is "
                       + "not a number of microseconds from 0 to \(Self.longestTime) (a century)")
        }
        let slowestFirst = PluginTimeline.all(in: trace).sorted {
            ($0.totalMicroseconds, $1.plugin) > ($1.totalMicroseconds, $0.plugin)
        }
        if output.json {
            console.jsonDocument(slowestFirst.map {
                Entry(plugin: $0.plugin, library: $0.library, loadMicroseconds: $0.loadMicroseconds,
                      launchMicroseconds: $0.launchMicroseconds, totalMicroseconds: $0.totalMicroseconds)
            })
        } else {
            for timeline in slowestFirst {
                let total = Self.milliseconds(timeline.totalMicroseconds)
                let line = String(repeating: " ", count: max(0, 11 - total.count)) + total + " \(timeline.plugin) "
                    + "(\(timeline.library == nil ? "no load" : "load " + Self.milliseconds(timeline.loadMicroseconds)), "
                    + "launch \(Self.milliseconds(timeline.launchMicroseconds))) "
                    + (timeline.library ?? "built in")
                console.line(ControlCharacters.escaped(line))
            }
        }
    }

    /// The most microseconds a `ts` or `dur` may say: a century, so that no sum of them overflows.
    static let longestTime = 3_155_760_000_000_000.0

    /// The index and field of the first event whose `ts` or `dur` is negative, not finite, or longer
    /// than ``longestTime``; nil when every time is one a run could have.
    private static func timeOutOfRange(in trace: ChromeTrace) -> (Int, String)? {
        let inRange = { (time: Double) in time >= 0 && time <= longestTime }
        for (index, event) in trace.traceEvents.enumerated() {
            if !inRange(event.ts) { return (index, "ts") }
            if let duration = event.dur, !inRange(duration) { return (index, "dur") }
        }
        return nil
    }

    /// The largest trace read, 1 GiB: a pipe without end is refused, not read until memory runs
    /// out. A FIFO or a pipe (`blame <(…)`) is read like a file; a device is refused unread.
    static let largestTrace = 1 << 30

    /// The trace file's bytes; the error says why they cannot be read.
    private func contents() throws(TraceUnreadable) -> Data {
        let descriptor: Int32
        do throws(Errno) {
            descriptor = try systemCall { open(traceFile, O_RDONLY | O_CLOEXEC) }
        } catch {
            throw TraceUnreadable(description: error.description)
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFCHR, S_IFBLK: throw TraceUnreadable(description: "it is a device, not a file")
            case S_IFDIR: throw TraceUnreadable(description: "it is a directory")
            default: break
            }
        }
        let bytes: [UInt8]?
        do throws(Errno) {
            bytes = try StandardStream.readAll(descriptor, atMost: Self.largestTrace)
        } catch {
            throw TraceUnreadable(description: error.description)
        }
        guard let bytes else {
            throw TraceUnreadable(description: "it is longer than \(Self.largestTrace >> 30) GiB, the longest trace read")
        }
        return Data(bytes)
    }

    /// Why the trace file cannot be read: the system's error, its kind, or its length.
    private struct TraceUnreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// What the decoder found wrong, and where: the JSON key path and the cause (Foundation's
    /// localized text says only that the data is "not in the correct format").
    private static func explain(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        /// "at traceEvents[0].name: " (nothing at the top), then `cause`.
        func at(_ path: [any CodingKey], _ cause: String) -> String {
            let keys = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return (keys.isEmpty ? "" : "at \(keys.hasPrefix(".") ? String(keys.dropFirst()) : keys): ") + cause
        }
        return switch error {
        case .dataCorrupted(let context):
            at(context.codingPath, context.debugDescription + ((context.underlyingError as NSError?).map { " \($0.debugDescription)" } ?? ""))
        case .keyNotFound(let key, let context): at(context.codingPath, "the key \"\(key.stringValue)\" is missing")
        case .typeMismatch(_, let context), .valueNotFound(_, let context): at(context.codingPath, context.debugDescription)
        @unknown default: String(describing: error)
        }
    }

    private func fail(_ message: String) -> ExitCode {
        StandardStream.writeError("plugboard blame: " + ControlCharacters.escaped(message))
        return ExitCodes.failure
    }

    /// `12.345ms`, as systemd-analyze blame writes times.
    private static func milliseconds(_ microseconds: Double) -> String {
        String(format: "%.3fms", microseconds / 1000)
    }
}
