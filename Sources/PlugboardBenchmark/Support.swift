import CBenchmarkBaseline
import Foundation
import Glibc
import PlugboardChildProcess

/// A setup or measurement problem, with a sentence saying what went wrong.
struct BenchmarkError: Error, CustomStringConvertible {
    /// The sentence.
    let description: String

    /// An error with the given sentence.
    init(_ description: String) { self.description = description }
}

/// Nanoseconds on CLOCK_MONOTONIC, the same clock the C baseline reads.
enum Clock {
    /// The current time.
    static func now() -> UInt64 { pbb_now_ns() }
}

/// Keeps a value alive as far as the optimizer is concerned.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Progress lines for the operator, on standard error so that stdout stays the report.
enum Progress {
    /// Writes one line to standard error.
    static func say(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// Small file-system helpers built on Glibc.
enum Files {
    /// Whether something exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` is an executable regular file.
    static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }

    /// The names in `directory` ending in `suffix`, sorted; empty if it cannot be read.
    static func names(in directory: String, suffix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted()
    }

    /// Creates `path` and its parents.
    static func makeDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw BenchmarkError("cannot create the directory \(path): \(error.localizedDescription)")
        }
    }

    /// Removes `path` and everything under it, if it exists.
    static func remove(_ path: String) throws {
        guard exists(path) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw BenchmarkError("cannot remove \(path): \(error.localizedDescription)")
        }
    }

    /// Copies the file at `source` to `target`, replacing it.
    static func copy(_ source: String, to target: String) throws {
        try? FileManager.default.removeItem(atPath: target)
        do {
            try FileManager.default.copyItem(atPath: source, toPath: target)
        } catch {
            throw BenchmarkError("cannot copy \(source) to \(target): \(error.localizedDescription)")
        }
    }

    /// Runs a build tool (a compiler, cargo) to its end, its output in the file `log`; throws with that
    /// output when it fails.
    static func build(_ program: String, _ arguments: [String], log: String) throws {
        let child = try ChildProcess(program, arguments, output: .file(log), error: .sameAsOutput)
        let termination = try child.wait()
        guard termination.succeeded else {
            throw BenchmarkError("\(program) \(arguments.joined(separator: " ")) failed (\(termination)):\n\(text(log) ?? "")")
        }
    }

    /// Writes `text` to `path`, replacing it.
    static func write(_ text: String, to path: String) throws {
        do {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
        } catch {
            throw BenchmarkError("cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// The contents of `path` as text, or nil.
    static func text(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads every byte of each file (and throws the bytes away), so that the
    /// files are in the page cache without being opened by the dynamic loader.
    /// Returns the number of bytes read.
    @discardableResult
    static func warm(_ paths: [String]) -> Int {
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        for path in paths {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                total += count
            }
        }
        return total
    }

    /// The real path of the running executable.
    static func currentExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` without its last component.
    static func parent(_ path: String) -> String {
        (path as NSString).deletingLastPathComponent
    }
}

/// 64-bit FNV-1a: a stable hash (Swift's `Hasher` is seeded per process).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Mixes `bytes` into the hash.
    mutating func combine<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
    }

    /// Mixes `text` and a separator into the hash.
    mutating func combine(_ text: String) {
        combine(text.utf8)
        combine(CollectionOfOne(0))
    }

    /// The hash as 16 hex digits.
    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }
}

/// Formatting of the numbers the report prints.
enum Format {
    /// `value` with `digits` digits after the point.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// Nanoseconds as milliseconds with two decimals.
    static func milliseconds(_ nanoseconds: UInt64) -> String {
        fixed(Double(nanoseconds) / 1e6, 2)
    }

    /// Nanoseconds as seconds with one decimal.
    static func seconds(_ nanoseconds: UInt64) -> String {
        fixed(Double(nanoseconds) / 1e9, 1)
    }

    /// A ratio as "1.23×".
    static func ratio(_ value: Double) -> String {
        fixed(value, value < 10 ? 2 : 1) + "×"
    }

    /// `text` padded with spaces on the left to `width` characters.
    static func right(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// `text` padded with spaces on the right to `width` characters.
    static func left(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}

extension Array where Element == UInt64 {
    /// The middle value once sorted (the upper one of an even count).
    var median: UInt64 { sorted()[count / 2] }
}
