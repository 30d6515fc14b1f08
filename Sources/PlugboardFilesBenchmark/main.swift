import Foundation
import Glibc
import PlugboardFiles

/// Measures what the file facade's guarantees cost: writing and reading N small
/// files through `FileFacade` (confinement by descriptor walks, atomic write
/// with fsync of file and directory) against plain Foundation
/// (`Data.write` without `.atomic`, `Data(contentsOf:)`), and the steps in
/// between, so the ratio can be explained and not only stated.
///
/// usage: plugboard-files-benchmark [--files N] [--size BYTES] [--markdown]
enum FilesBenchmark {
    /// One way of writing and reading the files.
    struct Variant {
        let name: String
        let write: (Int, [UInt8]) throws -> Void
        let read: (Int) throws -> Int
    }

    /// One variant's best run.
    struct Result {
        let name: String
        let writeNanoseconds: UInt64
        let readNanoseconds: UInt64
    }

    static func main() -> Int32 {
        var count = 10_000, size = 256, markdown = false
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--files": count = arguments.popFirst().flatMap(Int.init) ?? -1
            case "--size": size = arguments.popFirst().flatMap(Int.init) ?? -1
            case "--markdown": markdown = true
            default:
                complain("usage: plugboard-files-benchmark [--files N] [--size BYTES] [--markdown]")
                return 64
            }
        }
        guard count > 0, size >= 0 else {
            complain("plugboard-files-benchmark: --files and --size need positive numbers")
            return 64
        }
        do {
            let results = try run(count: count, size: size)
            print(markdown ? markdownTable(results, count: count, size: size) : plainTable(results, count: count, size: size))
            return 0
        } catch {
            complain("plugboard-files-benchmark: \(error)")
            return 1
        }
    }

    static func complain(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    static func run(count: Int, size: Int) throws -> [Result] {
        let scratch = NSTemporaryDirectory() + "/plugboard-files-benchmark-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let payload = [UInt8]((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })

        let container = try Container(rootPath: scratch + "/container")
        try container.createDirectories()
        let facade = FileFacade(container: container)
        let plain = scratch + "/plain"
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        let atomic = scratch + "/atomic"
        try FileManager.default.createDirectory(atPath: atomic, withIntermediateDirectories: true)
        let synced = scratch + "/synced"
        try FileManager.default.createDirectory(atPath: synced, withIntermediateDirectories: true)

        let variants = [
            Variant(name: "Foundation Data.write (not atomic) + Data(contentsOf:)",
                    write: { try Data($1).write(to: URL(fileURLWithPath: "\(plain)/f\($0)")) },
                    read: { try Data(contentsOf: URL(fileURLWithPath: "\(plain)/f\($0)")).count }),
            Variant(name: "Foundation Data.write(.atomic) (temporary + rename, no fsync)",
                    write: { try Data($1).write(to: URL(fileURLWithPath: "\(atomic)/f\($0)"), options: .atomic) },
                    read: { try Data(contentsOf: URL(fileURLWithPath: "\(atomic)/f\($0)")).count }),
            Variant(name: "POSIX write + fsync of the file (no rename, no directory fsync)",
                    write: { index, bytes in try syncedWrite("\(synced)/f\(index)", bytes) },
                    read: { try Data(contentsOf: URL(fileURLWithPath: "\(synced)/f\($0)")).count }),
            Variant(name: "FileFacade writeBytes + readBytes (confined, atomic, fsync file and directory)",
                    write: { try facade.writeBytes($1, to: "f\($0)", in: .documents, overwrite: true) },
                    read: { try facade.readBytes("f\($0)", in: .documents).count }),
        ]
        var best: [String: (UInt64, UInt64)] = [:]
        for _ in 0..<3 {
            for variant in variants {
                let write = try time { for index in 0..<count { try variant.write(index, payload) } }
                let read = try time {
                    for index in 0..<count where try variant.read(index) != size {
                        throw BenchmarkFailure("\(variant.name) read back a wrong size for file \(index)")
                    }
                }
                let previous = best[variant.name] ?? (.max, .max)
                best[variant.name] = (min(previous.0, write), min(previous.1, read))
            }
        }
        return variants.map { Result(name: $0.name, writeNanoseconds: best[$0.name]?.0 ?? 0, readNanoseconds: best[$0.name]?.1 ?? 0) }
    }

    static func syncedWrite(_ path: String, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BenchmarkFailure("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else { throw BenchmarkFailure("write \(path): \(String(cString: strerror(errno)))") }
    }

    static func time(_ body: () throws -> Void) throws -> UInt64 {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        try body()
        clock_gettime(CLOCK_MONOTONIC, &end)
        return UInt64(end.tv_sec - start.tv_sec) * 1_000_000_000 + UInt64(end.tv_nsec) &- UInt64(start.tv_nsec)
    }

    static func rows(_ results: [Result], count: Int) -> [[String]] {
        let baseline = results.first.map { Double($0.writeNanoseconds + $0.readNanoseconds) } ?? 1
        return results.map { result in
            let total = Double(result.writeNanoseconds + result.readNanoseconds)
            return [result.name,
                    String(format: "%.1f", Double(result.writeNanoseconds) / Double(count) / 1e3),
                    String(format: "%.1f", Double(result.readNanoseconds) / Double(count) / 1e3),
                    String(format: "%.2f×", total / baseline)]
        }
    }

    static func plainTable(_ results: [Result], count: Int, size: Int) -> String {
        var lines = ["\(count) files of \(size) bytes, best of 3; µs per file; ratio of write+read to plain Foundation"]
        for row in rows(results, count: count) {
            lines.append(row[0].padding(toLength: 84, withPad: " ", startingAt: 0)
                         + " write \(row[1]) µs  read \(row[2]) µs  \(row[3])")
        }
        return lines.joined(separator: "\n")
    }

    static func markdownTable(_ results: [Result], count: Int, size: Int) -> String {
        var lines = ["\(count) files of \(size) bytes, best of 3 runs.", "",
                     "| variant | write µs/file | read µs/file | write+read vs plain Foundation |",
                     "|---|---:|---:|---:|"]
        lines += rows(results, count: count).map { "| \($0[0]) | \($0[1]) | \($0[2]) | \($0[3]) |" }
        return lines.joined(separator: "\n")
    }
}

/// A benchmark step that went wrong.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

exit(FilesBenchmark.main())
