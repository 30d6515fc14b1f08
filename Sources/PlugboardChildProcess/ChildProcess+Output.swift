import Glibc
import PlugboardSystem
import SystemPackage

extension ChildProcess {
    /// Reads what the child wrote to `descriptor` (its `output` or `errorOutput`), up to
    /// `buffer.count` bytes, into the start of `buffer`, waiting until there is some;
    /// how many, 0 at the end of the stream.
    public func read(_ descriptor: Int32, into buffer: inout [UInt8]) throws(ChildProcessError) -> Int {
        do {
            return try systemCall { buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) } }
        } catch {
            throw ChildProcessError(operation: "read from", executable: executable, cause: error)
        }
    }
}
