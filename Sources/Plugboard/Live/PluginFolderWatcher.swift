import Glibc
import PlugboardSystem
import SystemPackage

/// Watches the folders of a search path for files that appear, change or disappear, with inotify:
/// what a host needs to apply drop-ins as they happen (``PluginHost/applyChanges(in:trust:)``).
///
/// The watcher only says that something changed; the host's scan decides what. Wait until the folders
/// have been quiet for ``quietTime`` after the last change before applying them: a file copied in
/// several writes is then complete, and a burst of changes is applied once. Poll ``descriptor`` for
/// input in the application's own loop, then call ``takeChanges()``.
public final class PluginFolderWatcher {
    /// How long the folders should stay quiet after a change before it is applied.
    public static let quietTime: Duration = .milliseconds(100)

    /// Readable when a watched folder changed.
    public let descriptor: Int32
    /// The folders watched (those of the search path that exist and can be watched).
    public let folders: [String]

    /// Watches every folder of `searchPath` that exists; a folder that cannot be watched (missing,
    /// not a folder, unreadable) is left out of ``folders``. Throws when inotify cannot be used at all.
    public init(_ searchPath: PluginSearchPath) throws(Errno) {
        let descriptor = try systemCall { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        self.descriptor = descriptor
        // A file written in place ends with IN_CLOSE_WRITE; one renamed into place is IN_MOVED_TO.
        // IN_MODIFY and IN_CREATE restart the quiet time of a file still being written.
        let events = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB
            | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR
        folders = searchPath.directories.map(\.path).filter { folder in
            inotify_add_watch(descriptor, folder, UInt32(events)) >= 0
        }
    }

    deinit { close(descriptor) }

    /// Reads what the kernel queued; true when a watched folder changed since the last call.
    /// Does not wait.
    public func takeChanges() -> Bool {
        var changed = false
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 { changed = true }
        return changed
    }
}
