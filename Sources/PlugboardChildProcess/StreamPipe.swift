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
        let ends = try closeOnExecPipe()
        return childReads ? StreamPipe(childEnd: ends.read, parentEnd: ends.write)
                          : StreamPipe(childEnd: ends.write, parentEnd: ends.read)
    }
}
