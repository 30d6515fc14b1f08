import Glibc
import Synchronization

/// Turns SIGINT and SIGTERM into bytes on a pipe, so the run loop can wait for
/// "the next event line or a signal" with one `poll` and answer a signal with
/// an orderly will-terminate instead of dying mid-callback. SIGHUP wakes the loop the
/// same way and asks it to apply the changes in the plugin folders (``takeHangUp()``).
///
/// A plugin cannot take the signals away for long: every ``pending()`` check (after
/// loading, before each event) installs the handlers again and unblocks the signals,
/// undoing a `SIG_IGN`, a blocked mask or a plugin's own handler. A second signal
/// ends the process at once from the handler (a plugin callback that never returns
/// never lets the run loop see the first): it writes the pre-rendered farewell to
/// the report and calls `_exit(128 + N)`, async-signal-safe calls only.
struct SignalWatcher {
    /// The read end: readable when a signal arrived.
    let descriptor: Int32

    /// Installs the handlers; nil if the pipe could not be made (then signals keep their default action).
    ///
    /// - Parameters:
    ///   - report: the descriptor the farewell goes to (the console's private standard output).
    ///   - farewell: the text printed when a second signal ends the process at once, per signal.
    static func install(report: Int32, farewell: (Int32) -> String) -> SignalWatcher? {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        // Every global the handler reads is set (and so initialized) before the handler exists.
        signalPipeWriteEnd = fds[1]
        reportDescriptor = report
        interruptFarewell = rendered(farewell(SIGINT))
        terminateFarewell = rendered(farewell(SIGTERM))
        _ = signalsReceived.load(ordering: .relaxed)
        _ = hangUps.load(ordering: .relaxed)
        let watcher = SignalWatcher(descriptor: fds[0])
        watcher.reclaim()
        return watcher
    }

    /// Re-installs the handlers and unblocks the signals (a plugin may have undone
    /// either), then returns the first SIGINT or SIGTERM received so far, without waiting.
    /// Also reopens standard descriptors a plugin closed (``StandardStream/reopenClosed()``):
    /// this is the run's one check point between plugin calls.
    func pending() -> Int32? {
        reclaim()
        StandardStream.reopenClosed()
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1 {
            guard Int32(byte) != SIGHUP else { continue }
            signalsTaken.add(1, ordering: .relaxed)
            return Int32(byte)
        }
        return nil
    }

    /// Whether SIGHUP arrived since the last call: the plugin folders should be looked at again.
    func takeHangUp() -> Bool {
        hangUps.exchange(0, ordering: .relaxed) > 0
    }

    /// Whether a SIGINT or SIGTERM arrived that ``pending()`` has not taken yet; takes nothing.
    /// Safe from any thread.
    func arrived() -> Bool {
        signalsReceived.load(ordering: .relaxed) > signalsTaken.load(ordering: .relaxed)
    }

    /// Installs the handler for SIGINT, SIGTERM and SIGHUP and unblocks them in this thread
    /// (a parent, or a plugin, may have blocked them: the mask is inherited).
    private func reclaim() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            if signal == SIGHUP {
                hangUps.add(1, ordering: .relaxed)
                var byte = UInt8(truncatingIfNeeded: signal)
                _ = write(signalPipeWriteEnd, &byte, 1)
                return
            }
            if signalsReceived.wrappingAdd(1, ordering: .relaxed).oldValue > 0 {
                let farewell = signal == SIGINT ? interruptFarewell : terminateFarewell
                _ = write(reportDescriptor, farewell.baseAddress, farewell.count)
                _exit(128 + signal)
            }
            var byte = UInt8(truncatingIfNeeded: signal)
            _ = write(signalPipeWriteEnd, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        var wanted = sigset_t()
        sigemptyset(&wanted)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            sigaction(signal, &action, nil)
            sigaddset(&wanted, signal)
        }
        pthread_sigmask(SIG_UNBLOCK, &wanted, nil)
    }

    /// `text` in memory that is never freed, for the handler to write.
    private static func rendered(_ text: String) -> UnsafeBufferPointer<UInt8> {
        let bytes = Array(text.utf8)
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = buffer.initialize(from: bytes)
        return UnsafeBufferPointer(buffer)
    }
}

/// SIGINT and SIGTERM received so far; the second ends the process at once.
private let signalsReceived = Atomic<Int>(0)
/// SIGINT and SIGTERM that ``SignalWatcher/pending()`` returned.
private let signalsTaken = Atomic<Int>(0)
/// SIGHUP received since ``SignalWatcher/takeHangUp()`` last looked.
private let hangUps = Atomic<Int>(0)

// Written only before the handlers are installed; read by the signal handler.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1
nonisolated(unsafe) private var reportDescriptor: Int32 = -1
nonisolated(unsafe) private var interruptFarewell = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
nonisolated(unsafe) private var terminateFarewell = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
