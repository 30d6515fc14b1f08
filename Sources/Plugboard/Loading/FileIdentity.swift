/// A file's device and inode: what makes two paths the same library.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
}
