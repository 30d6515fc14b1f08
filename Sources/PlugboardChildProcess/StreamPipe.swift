import Glibc
import PlugboardSystem
import SystemPackage

/// A close-on-exec pipe between a child's standard stream and this process.
struct StreamPipe {
    /// The end the child gets as its stream; closed here once the child is started.
    let childEnd: Int32
    /// The end this process keeps.
    let parentEnd: Int32

    /// A pipe for `stream` when it is `.pipe`, else nil; `childReads` for standard input.
    static func make(for stream: ChildStream, childReads: Bool) throws(Errno) -> StreamPipe? {
        guard case .pipe = stream else { return nil }
        var ends: [Int32] = [-1, -1]
        try systemCall { pipe2(&ends, O_CLOEXEC) }
        return childReads ? StreamPipe(childEnd: ends[0], parentEnd: ends[1])
                          : StreamPipe(childEnd: ends[1], parentEnd: ends[0])
    }
}

/// glibc's `pipe2`, which the Glibc module hides behind _GNU_SOURCE: close-on-exec
/// from birth, so no child that another thread spawns meanwhile inherits the pipe.
@_silgen_name("pipe2")
private func pipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32
