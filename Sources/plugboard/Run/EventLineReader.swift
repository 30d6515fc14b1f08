import Glibc
import Plugboard
import PlugboardSystem

/// Reads an events stream line by line while watching for signals and for changes in the plugin
/// folders: each call returns the next line, a signal, a request to apply the folders' changes, or
/// the end, whichever comes first. Without a stream it waits for signals and changes only.
struct EventLineReader {
    /// What came next.
    enum Next: Equatable {
        case line(number: Int, text: String)
        case signal(Int32)
        /// SIGHUP arrived, or the watched folders changed and then stayed quiet for
        /// ``PluginFolderWatcher/quietTime``: apply the changes.
        case foldersChanged
        case end
        case failure(String)
        /// Line `number` is longer than ``EventLineReader/longestLine``: read past, not kept.
        case overlong(number: Int)
        /// Line `number` is not UTF-8: the first byte that is not, and where it is (from 1).
        case notUTF8(number: Int, byte: UInt8, position: Int)
    }

    /// The longest events line kept: 64 MiB, the largest frame a plugin worker takes (a longer
    /// event could not reach a plugin in a worker), so a file without newlines cannot fill memory.
    static let longestLine = 64 << 20

    /// The events stream; nil: none, wait for signals and changes.
    private let descriptor: Int32?
    private let signals: SignalWatcher?
    private let watcher: PluginFolderWatcher?
    /// What was read and not returned yet: the bytes from `start` on.
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the next newline goes on: the bytes from `start` to here hold none.
    private var scanned = 0
    /// Whether the bytes read are the rest of an overlong line, dropped up to its newline.
    private var skipping = false
    private var lineNumber = 0
    private var atEnd = false
    /// When the folders' last change is quiet long enough to be applied; nil: no change waits.
    private var changesDue: ContinuousClock.Instant?

    init(descriptor: Int32?, signals: SignalWatcher?, watcher: PluginFolderWatcher?) {
        self.descriptor = descriptor
        self.signals = signals
        self.watcher = watcher
    }

    mutating func next() -> Next {
        while true {
            if let signal = signals?.pending() { return .signal(signal) }
            if signals?.takeHangUp() == true { return .foldersChanged }
            if let due = changesDue, ContinuousClock.now >= due {
                changesDue = nil
                return .foldersChanged
            }
            if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[start..<newline]
                (start, scanned) = (newline + 1, newline + 1)
                if skipping {
                    skipping = false
                    continue
                }
                return Self.text(of: line, number: bump())
            }
            scanned = buffer.count
            if skipping || buffer.count - start > Self.longestLine {
                // Only the newline that ends it is looked for; nothing of the line is kept.
                (buffer, start, scanned) = ([], 0, 0)
                if !skipping {
                    skipping = true
                    return .overlong(number: bump())
                }
            }
            if atEnd {
                defer { (buffer, start, scanned) = ([], 0, 0) }
                guard start < buffer.count, !skipping else { return .end }
                return Self.text(of: buffer[start...], number: bump())
            }
            if let problem = fill() { return .failure(problem) }
        }
    }

    /// Line `number`, `bytes`, as text; or where it is not UTF-8 (it is not repaired: the byte a
    /// repair puts in its place would be named instead of the one in the input).
    private static func text(of bytes: ArraySlice<UInt8>, number: Int) -> Next {
        if let text = String(validating: bytes, as: UTF8.self) { return .line(number: number, text: text) }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) { offset += scalar.count }
        return .notUTF8(number: number, byte: bytes[bytes.startIndex + offset], position: offset + 1)
    }

    private mutating func bump() -> Int {
        lineNumber += 1
        return lineNumber
    }

    /// Waits for input, a signal, a change in the folders, or the quiet time of the last change to
    /// end, then reads what is there; nil on success.
    private mutating func fill() -> String? {
        var fds = [pollfd(fd: descriptor ?? -1, events: Int16(POLLIN), revents: 0)]
        if let signals { fds.append(pollfd(fd: signals.descriptor, events: Int16(POLLIN), revents: 0)) }
        if let watcher { fds.append(pollfd(fd: watcher.descriptor, events: Int16(POLLIN), revents: 0)) }
        var timeout: Int32 = -1
        if let due = changesDue {
            let left = ContinuousClock.now.duration(to: due).components
            timeout = Int32(clamping: max(0, left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000 + 1))
        }
        do {
            try systemCall { poll(&fds, nfds_t(fds.count), timeout) }
        } catch {
            return "cannot wait for events: \(error)"
        }
        if let watcher, fds.last?.fd == watcher.descriptor, fds.last?.revents != 0, watcher.takeChanges() {
            changesDue = ContinuousClock.now + PluginFolderWatcher.quietTime
        }
        guard let descriptor, fds[0].revents != 0 else { return nil }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count: Int
        do {
            count = try systemCall { chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) } }
        } catch {
            return error == .resourceTemporarilyUnavailable ? nil : "cannot read events: \(error)"
        }
        if count == 0 { atEnd = true }
        // The lines returned go once per read, so each byte moves at most once.
        buffer.removeSubrange(..<start)
        (scanned, start) = (scanned - start, 0)
        buffer += chunk[..<count]
        return nil
    }
}
