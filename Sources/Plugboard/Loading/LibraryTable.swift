import PlugboardFiles
import Synchronization

/// The libraries loaded in this process, by file identity.
///
/// A file is initialized once however many hosts load it; the last host to
/// release it triggers its `deinit`. The library stays mapped (RTLD_NODELETE),
/// so a later load initializes it again.
final class LibraryTable: Sendable {
    static let shared = LibraryTable()

    private struct Entry {
        let library: LoadedLibrary
        /// The hosts that hold it, once per acquisition (a host that stages a library it holds
        /// already holds it twice until the staged one goes): nearly always one, so a list searched
        /// costs less than a counted set made.
        var users: [ObjectIdentifier]
    }

    private let entries = Mutex<[FileIdentity: Entry]>([:])
    /// The file each path was when this process first opened it. A library is never unmapped, and
    /// the dynamic loader answers a later `dlopen` of the same path with that image (it matches a
    /// name before it looks at the file), whatever file the path leads to now.
    private let openedFiles = Mutex<[String: FileIdentity]>([:])

    /// Opens `path`, the file `identity`, with `open`, and notes which file it was; refused when this
    /// process opened another file from that path before, which `dlopen` would hand back instead: its
    /// code would run again, under the new file's name. One look-up of the path when it opens (the
    /// path is noted first, and forgotten if it cannot be opened).
    func opening<Opened>(_ path: String, as identity: FileIdentity,
                         _ open: () throws(LoadFailure) -> Opened) throws(LoadFailure) -> Opened {
        let earlier = openedFiles.withLock { files -> FileIdentity? in
            let earlier = files.updateValue(identity, forKey: path)
            if let earlier, earlier != identity { files[path] = earlier }
            return earlier
        }
        if let earlier, earlier != identity {
            throw LoadFailure(.open, "this process opened another file from this path before, and a library is never "
                              + "unloaded: the dynamic loader would hand back that one; restart the process to load this file")
        }
        do {
            return try open()
        } catch {
            if earlier == nil { openedFiles.withLock { _ = $0.removeValue(forKey: path) } }
            throw error
        }
    }

    /// The record `entry` gets from the `plugboard_entry` of the library just opened as the file
    /// `identity`, called under the table's lock (where ``acquire(path:identity:fileSize:opened:owner:sink:refusals:files:gate:calls:)``
    /// runs a library's stages, so no two run at once); nil without a call when a host holds the
    /// library already: its stages ran, and the record is not needed.
    func entryRecord(of identity: FileIdentity,
                     _ entry: () throws(LoadFailure) -> UnsafeRawPointer) throws(LoadFailure) -> UnsafeRawPointer? {
        try entries.withLock { entries throws(LoadFailure) -> UnsafeRawPointer? in
            entries[identity] == nil ? try entry() : nil
        }
    }

    /// Makes room for `count` more opened paths and libraries, so that noting them grows no table.
    func reserveOpenings(_ count: Int) {
        openedFiles.withLock { $0.reserveCapacity($0.count + count) }
        entries.withLock { $0.reserveCapacity($0.count + count) }
    }

    /// The library at `path` for `owner`, loading it if no host has it yet.
    /// The files service and the service gate are the first host's: a library is initialized once.
    /// `fileSize` is the size the `stat` that gave `identity` found; the library's
    /// calls run recorded in the owner's `calls`. Its messages go to `sink`, its refused bus calls to `refusals`.
    func acquire(path: String, identity: FileIdentity, fileSize: Int, opened: Result<LoadedLibrary.Opened, LoadFailure>?, owner: ObjectIdentifier,
                 sink: @escaping LogRouter.Sink, refusals: LogRouter.RefusalSink?, files: FilesAccess?, gate: ServiceGate,
                 calls: LibraryCallSite) throws(LoadedLibrary.Failure) -> LoadedLibrary {
        try entries.withLock { entries throws(LoadedLibrary.Failure) -> LoadedLibrary in
            if var entry = entries[identity] {
                entry.users.append(owner)
                entries[identity] = entry
                entry.library.router.attach(owner, sink, refusals: refusals)
                return entry.library
            }
            let router = LogRouter()
            router.attach(owner, sink, refusals: refusals)
            do throws(LoadedLibrary.Failure) {
                let library = try LoadedLibrary.load(path: path, identity: identity, fileSize: fileSize, opened: opened,
                                                     router: router, files: files, gate: gate, calls: calls)
                entries[identity] = Entry(library: library, users: [owner])
                return library
            } catch {
                // A thread the failed library started may still log: it must not reach this host.
                router.detach(owner)
                throw error
            }
        }
    }

    /// Lets go of one acquisition of `library` by `owner`; the last release runs the library's
    /// `deinit`, recorded in the owner's `calls`, under the table's lock as every stage of a library
    /// runs: a host loading the library again meanwhile waits for it to end. The owner stops hearing
    /// from the library when it holds it no more.
    func release(_ library: LoadedLibrary, owner: ObjectIdentifier, calls: LibraryCallSite) {
        let ownerLetGo = entries.withLock { entries -> Bool in
            guard var entry = entries[library.identity], entry.library === library,
                  let index = entry.users.firstIndex(of: owner) else { return true }
            entry.users.remove(at: index)
            if entry.users.isEmpty {
                entries[library.identity] = nil
                library.finalize(calls: calls)
                return true
            }
            entries[library.identity] = entry
            return !entry.users.contains(owner)
        }
        guard ownerLetGo else { return }
        library.router.detach(owner)
        library.invocations.detach(owner)
    }
}
