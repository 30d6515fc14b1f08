import Foundation
import Glibc
import PlugboardWorkerProtocol
import SystemPackage
import Testing

/// The two ends of a fresh `socketpair(AF_UNIX, SOCK_STREAM)`.
func socketPair() throws -> (FileDescriptor, FileDescriptor) {
    var ends: [Int32] = [-1, -1]
    let result = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends)
    try #require(result == 0, "socketpair: \(Errno(rawValue: errno))")
    return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
}

/// Two channels connected to each other.
func channelPair() throws -> (WorkerChannel, WorkerChannel) {
    let (a, b) = try socketPair()
    return (WorkerChannel(descriptor: a), WorkerChannel(descriptor: b))
}

/// Runs `body` on a new thread; `join` waits for it to end.
final class TestThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [finished] in
            body()
            finished.signal()
        }
        thread.start()
    }

    /// Waits for the thread's body to return (a generous bound, so a bug fails instead of hanging).
    func join() {
        #expect(finished.wait(timeout: .now() + 60) == .success, "a test thread did not finish")
    }
}
