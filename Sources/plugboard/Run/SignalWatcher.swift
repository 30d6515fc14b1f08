import Glibc

/// Turns SIGINT and SIGTERM into bytes on a pipe, so the run loop can wait for
/// "the next event line or a signal" with one `poll` and answer a signal with
/// an orderly will-terminate instead of dying mid-callback.
struct SignalWatcher {
    /// The read end: readable when a signal arrived.
    let descriptor: Int32

    /// Installs the handlers; nil if the pipe could not be made (then signals keep their default action).
    static func install() -> SignalWatcher? {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        signalPipeWriteEnd = fds[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            var byte = UInt8(truncatingIfNeeded: signal)
            _ = write(signalPipeWriteEnd, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A parent may start us with these signals blocked (the mask is inherited).
        var wanted = sigset_t()
        sigemptyset(&wanted)
        sigaddset(&wanted, SIGINT)
        sigaddset(&wanted, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &wanted, nil)
        return SignalWatcher(descriptor: fds[0])
    }

    /// The first signal received so far, without waiting.
    func pending() -> Int32? {
        var byte: UInt8 = 0
        return read(descriptor, &byte, 1) == 1 ? Int32(byte) : nil
    }
}

/// Written only before the handlers are installed; read by the signal handler.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1
