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
    /// The search path's folders, watched or not.
    private let paths: [String]
    /// The folder each watch of a folder is for.
    private var folderWatches: [Int32: String] = [:]
    /// For each watch of a folder's parent, the names in it that are search-path folders, or folders a
    /// search-path folder's symbolic link leads to: a folder created, removed, or swapped (a symbolic
    /// link replaced) there is watched again.
    private var parentWatches: [Int32: Set<String>] = [:]

    /// A file written in place ends with IN_CLOSE_WRITE; one renamed into place is IN_MOVED_TO.
    /// IN_MODIFY and IN_CREATE restart the quiet time of a file still being written. IN_MASK_ADD: a
    /// folder that is also another's parent keeps both watches' events.
    private static let folderEvents = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_MODIFY
                                             | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) | UInt32(IN_MASK_ADD)
    /// What in a parent folder can replace a search-path folder.
    private static let parentEvents = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_ONLYDIR) | UInt32(IN_MASK_ADD)

    /// Watches every folder of `searchPath` that exists, and the parent of each, so that a folder created
    /// later, or replaced (removed and made again, or a symbolic link to it swapped), is watched from then
    /// on. Throws when inotify cannot be used at all.
    public init(_ searchPath: PluginSearchPath) throws(Errno) {
        descriptor = try systemCall { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        paths = searchPath.directories.map(\.path)
        for path in paths { watchParent(of: path) }
        rearm()
    }

    /// Watches the folder holding `path` for its name: a search-path folder, or the folder a
    /// search-path folder's symbolic link leads to (``rearm()``: a link whose folder was removed and
    /// made again leads to it again; one level of link).
    private func watchParent(of path: String) {
        let parent = Self.split(path)
        let watch = inotify_add_watch(descriptor, parent.folder, Self.parentEvents)
        if watch >= 0 { parentWatches[watch, default: []].insert(parent.name) }
    }

    /// Where the symbolic link `path` leads, made absolute against its folder; nil when it is no link.
    private static func linkTarget(of path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        // `readlink` of "link/" fails: the name without its trailing slashes is the link.
        var name = Substring(path)
        while name.count > 1, name.hasSuffix("/") { name = name.dropLast() }
        let count = readlink(String(name), &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let target = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return target.hasPrefix("/") ? target : split(path).folder + "/" + target
    }

    deinit { close(descriptor) }

    /// The folders watched now (those of the search path that exist and can be watched), in search order.
    public var folders: [String] {
        let watched = Set(folderWatches.values)
        return paths.filter(watched.contains)
    }

    /// Reads what the kernel queued; true when a watched folder changed since the last call (or a
    /// search-path folder appeared, disappeared or was replaced: it is watched again). Does not wait.
    public func takeChanges() -> Bool {
        var changed = false
        var replaced = false
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + 16 <= count {
                let watch = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Int32.self) }
                let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
                let length = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
                let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                offset += 16 + length
                if folderWatches[watch] != nil {
                    changed = true
                    if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 { replaced = true }
                } else if let names = parentWatches[watch], names.contains(String(decoding: nameBytes, as: UTF8.self)) {
                    changed = true
                    replaced = true
                } else if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    changed = true
                    replaced = true
                }
            }
        }
        if replaced { rearm() }
        return changed
    }

    /// Watches each search-path folder as its path resolves now, and stops watching the folders its
    /// paths no longer lead to.
    private func rearm() {
        var current: [Int32: String] = [:]
        for path in paths {
            if let target = Self.linkTarget(of: path) { watchParent(of: target) }
            let watch = inotify_add_watch(descriptor, path, Self.folderEvents)
            if watch >= 0 { current[watch] = path }
        }
        for stale in folderWatches.keys where current[stale] == nil { inotify_rm_watch(descriptor, stale) }
        folderWatches = current
    }

    /// `path`'s parent folder and last name.
    private static func split(_ path: String) -> (folder: String, name: String) {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/") else { return (".", trimmed) }
        let folder = String(trimmed[..<slash])
        return (folder.isEmpty ? "/" : folder, String(trimmed[trimmed.index(after: slash)...]))
    }
}
