import Glibc
import PlugboardSystem

/// Reads an events stream line by line while watching for signals: each call
/// returns the next line, a signal, or the end, whichever comes first.
struct EventLineReader {
    /// What came next.
    enum Next: Equatable {
        case line(number: Int, text: String)
        case signal(Int32)
        case end
        case failure(String)
    }

    private let descriptor: Int32
    private let signals: SignalWatcher?
    private var buffer: [UInt8] = []
    private var lineNumber = 0
    private var atEnd = false

    init(descriptor: Int32, signals: SignalWatcher?) {
        self.descriptor = descriptor
        self.signals = signals
    }

    mutating func next() -> Next {
        while true {
            if let signal = signals?.pending() { return .signal(signal) }
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[..<newline]
                buffer.removeSubrange(...newline)
                return .line(number: bump(), text: String(decoding: line, as: UTF8.self))
            }
            if atEnd {
                guard !buffer.isEmpty else { return .end }
                defer { buffer.removeAll() }
                return .line(number: bump(), text: String(decoding: buffer, as: UTF8.self))
            }
            if let problem = fill() { return .failure(problem) }
        }
    }

    private mutating func bump() -> Int {
        lineNumber += 1
        return lineNumber
    }

    /// Waits for input or a signal, then reads what is there; nil on success.
    private mutating func fill() -> String? {
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if let signals { fds.append(pollfd(fd: signals.descriptor, events: Int16(POLLIN), revents: 0)) }
        do {
            try systemCall { poll(&fds, nfds_t(fds.count), -1) }
        } catch {
            return "cannot wait for events: \(error)"
        }
        guard fds[0].revents != 0 else { return nil }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count: Int
        do {
            count = try systemCall { chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) } }
        } catch {
            return error == .resourceTemporarilyUnavailable ? nil : "cannot read events: \(error)"
        }
        if count == 0 { atEnd = true }
        buffer += chunk[..<count]
        return nil
    }
}
