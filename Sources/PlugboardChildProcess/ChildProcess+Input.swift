import Glibc
import PlugboardSystem
import SystemPackage

extension ChildProcess {
    /// Writes all of `bytes` to the child's standard input, which must be a `.pipe`
    /// still open. A child that is gone makes this throw (EPIPE), never kills this process.
    public func send(_ bytes: [UInt8]) throws(ChildProcessError) {
        var rest = bytes[...]
        while !rest.isEmpty {
            do {
                rest = rest.dropFirst(try writeSome(rest))
            } catch {
                throw ChildProcessError(operation: "write to", executable: executable, cause: error)
            }
        }
    }

    /// Closes the child's standard input, so that it reads end of file; does nothing the second time.
    public func closeInput() {
        input.withLock { input in
            if let descriptor = input { close(descriptor) }
            input = nil
        }
    }

    /// One `write` of a prefix of `bytes` to the child's standard input; how many were written.
    ///
    /// SIGPIPE is blocked on this thread around the write (and the one it raised taken
    /// back), so a reader that is gone makes the write fail with EPIPE instead.
    func writeSome(_ bytes: ArraySlice<UInt8>) throws(Errno) -> Int {
        try input.withLock { input throws(Errno) in
            guard let descriptor = input else { throw Errno.badFileDescriptor }
            var pipeSignal = sigset_t(), previous = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            do throws(Errno) {
                return try systemCall { bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } }
            } catch {
                if error == .brokenPipe && sigismember(&previous, SIGPIPE) == 0 {
                    var noWait = timespec()
                    _ = sigtimedwait(&pipeSignal, nil, &noWait)
                }
                throw error
            }
        }
    }
}
