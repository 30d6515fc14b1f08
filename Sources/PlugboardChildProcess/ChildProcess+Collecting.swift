import Glibc
import PlugboardSystem
import SystemPackage

/// A child run to its end: how it ended, and what it wrote to its `.pipe` outputs.
public struct CollectedRun: Sendable {
    /// How it ended.
    public let termination: Termination
    /// Its standard output, when that was a `.pipe` (else empty).
    public let output: [UInt8]
    /// Its standard error, when that was a `.pipe` (else empty).
    public let errorOutput: [UInt8]
}

extension ChildProcess {
    /// Feeds `bytes` to the child's standard input and closes it (when it is a `.pipe`),
    /// reads its `.pipe` outputs to their end, all at once so that no pipe fills up,
    /// and reaps the child. On a failure the child is killed and reaped before this throws.
    public func collect(input bytes: [UInt8] = []) throws(ChildProcessError) -> CollectedRun {
        do throws(ChildProcessError) {
            let outputs = try feedAndRead(bytes)
            let termination = try wait()
            return CollectedRun(termination: termination, output: output.flatMap { outputs[$0] } ?? [],
                                errorOutput: errorOutput.flatMap { outputs[$0] } ?? [])
        } catch {
            stop()
            throw error
        }
    }

    /// The loop of `collect`: polls the input for room and the outputs for data until
    /// the input is written and the outputs are at their end; what each output held.
    private func feedAndRead(_ bytes: [UInt8]) throws(ChildProcessError) -> [Int32: [UInt8]] {
        var outputs: [Int32: [UInt8]] = [:]
        var rest = bytes[...]
        var feeding = input.withLock { $0 }
        if let descriptor = feeding {
            if rest.isEmpty {
                closeInput()
                feeding = nil
            } else {
                do throws(Errno) {
                    let flags = try systemCall { fcntl(descriptor, F_GETFL) }
                    try systemCall { fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
                } catch {
                    throw ChildProcessError(operation: "write to", executable: executable, cause: error)
                }
            }
        }
        var reading = [output, errorOutput].compactMap { $0 }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !reading.isEmpty || feeding != nil {
            var entries = reading.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if let feeding { entries.append(pollfd(fd: feeding, events: Int16(POLLOUT), revents: 0)) }
            do {
                try systemCall { poll(&entries, nfds_t(entries.count), -1) }
            } catch {
                throw ChildProcessError(operation: "read from", executable: executable, cause: error)
            }
            for entry in entries where entry.revents != 0 {
                if entry.fd == feeding {
                    do {
                        rest = rest.dropFirst(try writeSome(rest))
                    } catch where error == .resourceTemporarilyUnavailable {
                        continue
                    } catch where error == .brokenPipe {
                        rest = []  // The child closed its input: what it did not read is dropped.
                    } catch {
                        throw ChildProcessError(operation: "write to", executable: executable, cause: error)
                    }
                    if rest.isEmpty {
                        closeInput()
                        feeding = nil
                    }
                    continue
                }
                let count = try read(entry.fd, into: &chunk)
                if count == 0 {
                    reading.removeAll { $0 == entry.fd }
                } else {
                    outputs[entry.fd, default: []] += chunk[..<count]
                }
            }
        }
        return outputs
    }
}
